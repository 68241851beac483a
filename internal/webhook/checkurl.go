package webhook

import (
	"context"
	"net"
	"net/netip"
	"strings"
)

// Reasons CheckURL gives, meant for carteiro.Invalid("url", reason).
const (
	// ReasonInvalidURL: not an absolute https URL with a valid host and
	// port.
	ReasonInvalidURL = "invalid_url"
	// ReasonHostNotResolvable: a well-formed https URL whose host name
	// does not resolve (issue 24: a new user's first webhook is often a
	// typo or a name not yet in DNS, and "not a valid URL" misleads).
	ReasonHostNotResolvable = "host_not_resolvable"
	// ReasonNotAllowed: the host is, or resolves to, a non-public address.
	ReasonNotAllowed = "not_allowed"
)

// Resolver turns a host name into addresses. *net.Resolver and
// *dnscheck.Resolver satisfy it, so tests and operators choose the DNS
// server (CARTEIRO_DNS_SERVER).
type Resolver interface {
	LookupHost(ctx context.Context, host string) ([]string, error)
}

// CheckURL applies D51's registration rule to raw: it must be https and its
// host must be, or resolve only to, public addresses (IsPublicIP). IP
// literals are judged in every spelling (127.1, 2130706433, 0x7f000001,
// 0177.0.0.1, [::ffff:127.0.0.1]...); "localhost" and its subdomains are
// refused without asking DNS (RFC 6761); a name that does not resolve is
// host_not_resolvable. resolver nil means net.DefaultResolver. With allowPrivate
// (CARTEIRO_WEBHOOK_ALLOW_PRIVATE) any syntactically valid https URL passes
// and nothing is resolved.
//
// A passing URL can still resolve elsewhere later (DNS rebinding); the
// Client therefore checks again each address it connects to.
func CheckURL(ctx context.Context, raw string, resolver Resolver, allowPrivate bool) (reason string, ok bool) {
	t, err := parseTarget(raw)
	if err != nil {
		return ReasonInvalidURL, false
	}
	if allowPrivate {
		return "", true
	}
	if t.ip.IsValid() {
		if !IsPublicIP(t.ip) {
			return ReasonNotAllowed, false
		}
		return "", true
	}
	if t.host == "localhost" || strings.HasSuffix(t.host, ".localhost") {
		return ReasonNotAllowed, false
	}

	if resolver == nil {
		resolver = net.DefaultResolver
	}
	addrs, err := resolver.LookupHost(ctx, t.host)
	if err != nil || len(addrs) == 0 {
		return ReasonHostNotResolvable, false
	}
	for _, a := range addrs {
		ip, err := netip.ParseAddr(a)
		if err != nil || !IsPublicIP(ip) {
			// One private address is enough to refuse: a client would
			// pick any of them.
			return ReasonNotAllowed, false
		}
	}
	return "", true
}
