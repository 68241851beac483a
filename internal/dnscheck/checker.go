package dnscheck

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/carteiro/carteiro"
)

// Checker compares the records a domain should publish with what DNS holds
// (D32).
type Checker struct {
	Resolver *Resolver
}

// Check looks every record up concurrently and returns one RecordCheck per
// record kind: pass when a value found matches the rule of its kind, fail
// when the record is absent or wrong, pending when DNS gave no trustworthy
// answer (SERVFAIL, timeout), so a resolver hiccup never fails a domain.
func (c *Checker) Check(ctx context.Context, records []carteiro.DNSRecord) carteiro.DomainChecks {
	results := make([]carteiro.RecordCheck, len(records))
	var wg sync.WaitGroup
	for i, record := range records {
		wg.Go(func() { results[i] = c.checkRecord(ctx, record) })
	}
	wg.Wait()

	checks := make(carteiro.DomainChecks, len(records))
	for i, record := range records {
		checks[record.Record] = results[i]
	}
	return checks
}

// checkRecord looks one record up and applies its rule.
func (c *Checker) checkRecord(ctx context.Context, record carteiro.DNSRecord) carteiro.RecordCheck {
	check := carteiro.RecordCheck{Expected: record.Value, Found: []string{}}
	found, err := c.lookup(ctx, record)
	switch {
	case errors.Is(err, ErrTemporary):
		check.Status = carteiro.CheckPending
		return check
	case err != nil:
		// Not found, or a name DNS cannot carry: the record is not there.
		check.Status = carteiro.CheckFail
		return check
	}
	check.Found = found
	check.Status = carteiro.CheckFail
	match := matcherFor(record)
	for _, value := range found {
		if match(record.Value, value) {
			check.Status = carteiro.CheckPass
			break
		}
	}
	return check
}

// lookup fetches the values published at the record's host: the TXT
// strings, the CNAME target, or the MX hosts.
func (c *Checker) lookup(ctx context.Context, record carteiro.DNSRecord) ([]string, error) {
	if strings.EqualFold(record.Type, "MX") {
		mxs, err := c.Resolver.LookupMX(ctx, record.Host)
		if err != nil {
			return nil, err
		}
		hosts := make([]string, len(mxs))
		for i, mx := range mxs {
			hosts[i] = mx.Host
		}
		return hosts, nil
	}
	if strings.EqualFold(record.Type, "CNAME") {
		target, err := c.Resolver.LookupCNAME(ctx, record.Host)
		if err != nil {
			return nil, err
		}
		return []string{target}, nil
	}
	return c.Resolver.LookupTXT(ctx, record.Host)
}
