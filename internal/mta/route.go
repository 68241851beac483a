package mta

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"

	"github.com/carteiro/carteiro/internal/dnscheck"
)

// resolver is what Direct needs from DNS; *dnscheck.Resolver provides it.
type resolver interface {
	LookupMX(ctx context.Context, name string) ([]*net.MX, error)
	LookupHost(ctx context.Context, name string) ([]string, error)
}

// route is where mail for one domain goes.
type route struct {
	hosts    []string // in the order to try
	implicit bool     // no MX: the domain itself (RFC 5321 section 5.1)
}

// lookupExchangers looks up the mail exchangers of domain, most preferred
// first; without MX it is the domain itself (implicit). It fails with a
// permanent result for a null MX (RFC 7505) and a temporary one when DNS
// does not answer.
func lookupExchangers(ctx context.Context, dns resolver, domain string) (mxs []*net.MX, implicit bool, fail *Result) {
	all, err := dns.LookupMX(ctx, domain)
	switch {
	case errors.Is(err, dnscheck.ErrNotFound):
		return []*net.MX{{Host: domain}}, true, nil
	case err != nil:
		r := failure(ClassTemporary, enhancedDNSFailure, "", fmt.Sprintf("looking up MX of %s: %v", domain, err))
		return nil, false, &r
	}
	for _, mx := range all {
		if mx.Host != "." && mx.Host != "" {
			mxs = append(mxs, mx)
		}
	}
	if len(mxs) == 0 {
		r := failure(ClassPermanent, enhancedNullMX, "", fmt.Sprintf("domain %s does not accept mail (null MX)", domain))
		return nil, false, &r
	}
	return mxs, false, nil
}

// shuffleEqualPreference randomises exchangers of equal preference, which
// RFC 5321 section 5.1 asks for to spread load; the list is sorted already.
func shuffleEqualPreference(mxs []*net.MX) {
	for start := 0; start < len(mxs); {
		end := start + 1
		for end < len(mxs) && mxs[end].Pref == mxs[start].Pref {
			end++
		}
		run := mxs[start:end]
		rand.Shuffle(len(run), func(i, j int) { run[i], run[j] = run[j], run[i] })
		start = end
	}
}

// addresses resolves an exchanger to its IP addresses (an exchanger given
// as a literal address is used as is, though RFC 7505 frowns on it).
func addresses(ctx context.Context, dns resolver, host string) ([]string, error) {
	if ip := net.ParseIP(host); ip != nil {
		return []string{ip.String()}, nil
	}
	return dns.LookupHost(ctx, host)
}
