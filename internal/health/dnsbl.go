package health

import (
	"fmt"
	"net/netip"
	"strings"
)

// queryIP is the DNSBL name of addr on zone (RFC 5782 section 2): the
// octets of an IPv4 address reversed, or the 32 nibbles of an IPv6 address
// reversed, followed by the zone.
func queryIP(addr netip.Addr, zone string) string {
	var b strings.Builder
	bytes := addr.AsSlice()
	for i := len(bytes) - 1; i >= 0; i-- {
		if addr.Is4() {
			fmt.Fprintf(&b, "%d.", bytes[i])
			continue
		}
		fmt.Fprintf(&b, "%x.%x.", bytes[i]&0x0f, bytes[i]>>4)
	}
	b.WriteString(zone)
	return b.String()
}

// queryDomain is the name of domain on a domain list (RFC 5782 section 2.2).
func queryDomain(domain, zone string) string { return domain + "." + zone }

// parseIP reads a sending address, treating an IPv4-mapped IPv6 address as
// the IPv4 address it carries, since that is what receivers look up.
func parseIP(s string) (netip.Addr, error) {
	addr, err := netip.ParseAddr(strings.TrimSpace(s))
	if err != nil {
		return netip.Addr{}, fmt.Errorf("health: sending IP %q: %w", s, err)
	}
	if addr.Zone() != "" {
		return netip.Addr{}, fmt.Errorf("health: sending IP %q: scoped addresses are not routable", s)
	}
	return addr.Unmap(), nil
}

// answerKind classifies one A record a DNSBL returned.
type answerKind int

const (
	// answerListed is a listing: an address in 127.0.0.0/8 (RFC 5782
	// section 2.3). Lists encode the reason in it, such as 127.0.0.2 to
	// 127.0.0.11 on zen.spamhaus.org or 127.0.1.x on dbl.spamhaus.org, so
	// the whole block counts, not only 127.0.0.x.
	answerListed answerKind = iota
	// answerRefused is an error code in 127.255.255.0/24, which Spamhaus
	// returns when it refuses to answer (a query through a public or open
	// resolver, too many queries, a malformed name). It says nothing about
	// the address, so it must never count as a listing.
	answerRefused
	// answerUnexpected is an address outside 127.0.0.0/8, typically a
	// resolver rewriting NXDOMAIN to an advertising page.
	answerUnexpected
)

// refusalCodes is the block of error answers of answerRefused.
var refusalCodes = netip.MustParsePrefix("127.255.255.0/24")

// loopbackBlock holds every DNSBL answer of RFC 5782.
var loopbackBlock = netip.MustParsePrefix("127.0.0.0/8")

// classifyAnswer tells what one A answer of a DNSBL means.
func classifyAnswer(addr netip.Addr) answerKind {
	addr = addr.Unmap()
	switch {
	case refusalCodes.Contains(addr):
		return answerRefused
	case loopbackBlock.Contains(addr):
		return answerListed
	default:
		return answerUnexpected
	}
}
