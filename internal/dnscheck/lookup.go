package dnscheck

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"

	"github.com/miekg/dns"
)

// LookupTXT returns the TXT records of name, each one's character-strings
// joined (a DKIM key longer than 255 bytes is published as several). CNAMEs
// on the way are followed, as a recursive server reports them.
func (r *Resolver) LookupTXT(ctx context.Context, name string) ([]string, error) {
	rrs, err := r.lookup(ctx, name, dns.TypeTXT)
	if err != nil {
		return nil, err
	}
	values := make([]string, 0, len(rrs))
	for _, rr := range rrs {
		var joined strings.Builder
		for _, s := range rr.(*dns.TXT).Txt {
			joined.WriteString(unescapeTXT(s))
		}
		values = append(values, joined.String())
	}
	return values, nil
}

// LookupCNAME returns the target of the CNAME record at exactly name,
// lowercased and without the trailing dot.
func (r *Resolver) LookupCNAME(ctx context.Context, name string) (string, error) {
	resp, err := r.query(ctx, name, dns.TypeCNAME)
	if err != nil {
		return "", err
	}
	owner := dns.Fqdn(name)
	for _, rr := range resp.Answer {
		if cname, ok := rr.(*dns.CNAME); ok && strings.EqualFold(rr.Header().Name, owner) {
			return normalizeHost(cname.Target), nil
		}
	}
	return "", fmt.Errorf("%w: CNAME %s: empty answer", ErrNotFound, name)
}

// LookupMX returns the mail exchangers of name, lowest preference first.
// Hosts are lowercased without the trailing dot; a null MX (RFC 7505) shows
// as Host ".".
func (r *Resolver) LookupMX(ctx context.Context, name string) ([]*net.MX, error) {
	rrs, err := r.lookup(ctx, name, dns.TypeMX)
	if err != nil {
		return nil, err
	}
	mxs := make([]*net.MX, 0, len(rrs))
	for _, rr := range rrs {
		mx := rr.(*dns.MX)
		host := normalizeHost(mx.Mx)
		if host == "" {
			host = "."
		}
		mxs = append(mxs, &net.MX{Host: host, Pref: mx.Preference})
	}
	slices.SortStableFunc(mxs, func(a, b *net.MX) int { return int(a.Pref) - int(b.Pref) })
	return mxs, nil
}

// LookupHost returns the IPv4 then IPv6 addresses of name, asking for A and
// AAAA at once. Addresses of one family are enough to succeed; without any,
// a temporary failure of either look-up wins over "not found".
func (r *Resolver) LookupHost(ctx context.Context, name string) ([]string, error) {
	qtypes := []uint16{dns.TypeA, dns.TypeAAAA}
	results := make([][]dns.RR, len(qtypes))
	errs := make([]error, len(qtypes))
	var wg sync.WaitGroup
	for i, qtype := range qtypes {
		wg.Go(func() { results[i], errs[i] = r.lookup(ctx, name, qtype) })
	}
	wg.Wait()

	var addrs []string
	for _, rrs := range results {
		for _, rr := range rrs {
			switch rr := rr.(type) {
			case *dns.A:
				addrs = append(addrs, rr.A.String())
			case *dns.AAAA:
				addrs = append(addrs, rr.AAAA.String())
			}
		}
	}
	if len(addrs) > 0 {
		return addrs, nil
	}
	for _, err := range errs {
		if err != nil && !isNotFound(err) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("%w: A/AAAA %s: no address", ErrNotFound, name)
}

// lookup returns the records of qtype that answer name: those owned by name
// or by a name it is an alias of, following the CNAME chain in the answer.
func (r *Resolver) lookup(ctx context.Context, name string, qtype uint16) ([]dns.RR, error) {
	resp, err := r.query(ctx, name, qtype)
	if err != nil {
		return nil, err
	}
	owners := aliasChain(resp.Answer, dns.Fqdn(name))
	var rrs []dns.RR
	for _, rr := range resp.Answer {
		if rr.Header().Rrtype == qtype && owners[dns.CanonicalName(rr.Header().Name)] {
			rrs = append(rrs, rr)
		}
	}
	if len(rrs) == 0 {
		return nil, fmt.Errorf("%w: %s %s: empty answer", ErrNotFound, dns.TypeToString[qtype], name)
	}
	return rrs, nil
}

// aliasChain returns name and every name it leads to through the answer's
// CNAME records, in canonical form.
func aliasChain(answer []dns.RR, name string) map[string]bool {
	owners := map[string]bool{dns.CanonicalName(name): true}
	// Each pass adds at least one name or stops, so len(answer)+1 passes
	// suffice even for an answer listing the chain out of order.
	for range len(answer) + 1 {
		grew := false
		for _, rr := range answer {
			cname, ok := rr.(*dns.CNAME)
			if !ok || !owners[dns.CanonicalName(rr.Header().Name)] {
				continue
			}
			if target := dns.CanonicalName(cname.Target); !owners[target] {
				owners[target] = true
				grew = true
			}
		}
		if !grew {
			break
		}
	}
	return owners
}

// normalizeHost lowercases a host name and drops the trailing dot.
func normalizeHost(host string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(host)), ".")
}
