package health

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"sync"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/dnscheck"
)

// Details of a Listing that is not listed, shown as they are in the
// blacklists of D33.
const (
	// DetailLookupFailed means the list gave no trustworthy answer (SERVFAIL,
	// timeout): the target is reported as not listed rather than guessed.
	DetailLookupFailed = "lookup failed"
	// DetailInvalidIP means a sending IP could not be parsed, which is a
	// configuration mistake worth showing rather than hiding.
	DetailInvalidIP = "invalid IP address"
)

// maxConcurrentLookups bounds the look-ups in flight, so many sending IPs
// times many lists never flood the resolver (public lists rate-limit).
const maxConcurrentLookups = 16

// Listing is the answer of one list about one target (D33's blacklists).
type Listing struct {
	// List is the zone asked, such as "zen.spamhaus.org".
	List string
	// Target is the IP address or the domain looked up.
	Target string
	// Listed reports a listing; a failed or refused look-up is not one.
	Listed bool
	// Detail is the list's TXT reason when listed, else why the answer
	// could not be trusted; empty for a plain "not listed".
	Detail string
}

// lookupJob is one (list, target) pair to ask about.
type lookupJob struct {
	zone   string
	target string
	name   string // the DNS name to query; "" when the target is invalid
	detail string // the detail of an invalid target
}

// CheckBlocklists asks every list about its targets: IP lists about each of
// ips (IPv4 reversed by octet, IPv6 by nibble), domain lists about domain
// (skipped when domain is ""). Look-ups run concurrently, each bounded by
// the resolver's timeout, and the result lists them in a stable order: by
// list, then by target in the order given, duplicates removed. A look-up
// that fails is reported as not listed with DetailLookupFailed, so one
// unreachable list never hides the others.
func CheckBlocklists(ctx context.Context, r *dnscheck.Resolver, lists []List, ips []string, domain string) []Listing {
	jobs := planLookups(lists, ips, domain)
	results := make([]Listing, len(jobs))
	slots := make(chan struct{}, maxConcurrentLookups)
	var wg sync.WaitGroup
	for i, job := range jobs {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			results[i] = lookupOne(ctx, r, job)
		})
	}
	wg.Wait()
	return results
}

// planLookups builds the (list, target) pairs in the order of the result.
func planLookups(lists []List, ips []string, domain string) []lookupJob {
	type ipTarget struct {
		text string
		addr netip.Addr
		err  error
	}
	var targets []ipTarget
	seen := make(map[string]bool, len(ips))
	for _, raw := range ips {
		addr, err := parseIP(raw)
		text := strings.TrimSpace(raw)
		if err == nil {
			text = addr.String()
		}
		if seen[text] {
			continue
		}
		seen[text] = true
		targets = append(targets, ipTarget{text: text, addr: addr, err: err})
	}
	domain = carteiro.NormalizeDomainName(domain)

	var jobs []lookupJob
	for _, list := range lists {
		zone := carteiro.NormalizeDomainName(list.Zone)
		switch list.Kind {
		case KindIP:
			for _, t := range targets {
				job := lookupJob{zone: zone, target: t.text}
				if t.err != nil {
					job.detail = DetailInvalidIP
				} else {
					job.name = queryIP(t.addr, zone)
				}
				jobs = append(jobs, job)
			}
		case KindDomain:
			if domain != "" {
				jobs = append(jobs, lookupJob{zone: zone, target: domain, name: queryDomain(domain, zone)})
			}
		}
	}
	return jobs
}

// lookupOne asks one list about one target and reads its answer.
func lookupOne(ctx context.Context, r *dnscheck.Resolver, job lookupJob) Listing {
	listing := Listing{List: job.zone, Target: job.target, Detail: job.detail}
	if job.name == "" {
		return listing
	}
	// LookupHost asks for A and AAAA; DNSBLs answer with A records only, so
	// the AAAA half finds nothing and the A answers decide.
	answers, err := r.LookupHost(ctx, job.name)
	switch {
	case errors.Is(err, dnscheck.ErrNotFound):
		return listing
	case err != nil:
		listing.Detail = DetailLookupFailed
		return listing
	}

	var codes, refused, unexpected []string
	for _, answer := range answers {
		addr, err := netip.ParseAddr(answer)
		if err != nil {
			continue
		}
		switch classifyAnswer(addr) {
		case answerListed:
			codes = append(codes, addr.String())
		case answerRefused:
			refused = append(refused, addr.String())
		default:
			unexpected = append(unexpected, addr.String())
		}
	}
	switch {
	case len(codes) > 0:
		listing.Listed = true
		listing.Detail = listingReason(ctx, r, job.name, codes)
	case len(refused) > 0:
		listing.Detail = "query refused by the list (" + strings.Join(refused, ", ") + "); it may not accept queries from this resolver"
	case len(unexpected) > 0:
		listing.Detail = "unexpected answer (" + strings.Join(unexpected, ", ") + "); the resolver may rewrite missing names"
	}
	return listing
}

// listingReason reads the TXT reason a list publishes beside a listing,
// falling back to the return codes when it publishes none or the look-up
// fails: a listing stays a listing either way.
func listingReason(ctx context.Context, r *dnscheck.Resolver, name string, codes []string) string {
	reasons, err := r.LookupTXT(ctx, name)
	var kept []string
	for _, reason := range reasons {
		if reason = strings.TrimSpace(reason); reason != "" {
			kept = append(kept, reason)
		}
	}
	if err != nil || len(kept) == 0 {
		return "listed (" + strings.Join(codes, ", ") + ")"
	}
	return strings.Join(kept, "; ")
}
