package webhook

import "net/netip"

// nonPublicIPv4 lists the IPv4 ranges a webhook may never reach (D51): the
// ones D51 names plus the other special-purpose ranges of the IANA registry
// that are not globally reachable unicast (RFC 6890 and successors).
var nonPublicIPv4 = mustPrefixes(
	"0.0.0.0/8",       // "this network", includes the unspecified 0.0.0.0
	"10.0.0.0/8",      // private (RFC 1918)
	"100.64.0.0/10",   // carrier-grade NAT (RFC 6598)
	"127.0.0.0/8",     // loopback
	"169.254.0.0/16",  // link-local, where cloud metadata services live
	"172.16.0.0/12",   // private (RFC 1918)
	"192.0.0.0/24",    // IETF protocol assignments
	"192.0.2.0/24",    // documentation (TEST-NET-1)
	"192.88.99.0/24",  // deprecated 6to4 relay anycast
	"192.168.0.0/16",  // private (RFC 1918)
	"198.18.0.0/15",   // benchmarking
	"198.51.100.0/24", // documentation (TEST-NET-2)
	"203.0.113.0/24",  // documentation (TEST-NET-3)
	"224.0.0.0/4",     // multicast
	"240.0.0.0/4",     // reserved, includes the broadcast 255.255.255.255
)

// globalUnicastIPv6 is the only IPv6 block allocated for global unicast;
// everything outside it (loopback, unspecified, ULA fc00::/7, link-local,
// multicast, discard-only, IPv4-compatible...) is refused by default.
var globalUnicastIPv6 = netip.MustParsePrefix("2000::/3")

// nonPublicIPv6 lists the special-purpose blocks inside 2000::/3 that are not
// reachable destinations.
var nonPublicIPv6 = mustPrefixes(
	"2001::/23",     // IETF protocol assignments: Teredo, benchmarking, ORCHID
	"2001:db8::/32", // documentation
	"3fff::/20",     // documentation (RFC 9637)
	"3ffe::/16",     // the retired 6bone
)

// Prefixes whose addresses embed an IPv4 address that decides the answer: a
// NAT64 or 6to4 address is only as public as the IPv4 address it carries.
var (
	nat64Prefix = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour   = netip.MustParsePrefix("2002::/16")
)

// IsPublicIP reports whether a webhook may connect to ip (D51). It is false
// for loopback, private (RFC 1918, fc00::/7), link-local, CGNAT, multicast,
// unspecified, "this network", documentation and benchmarking addresses, for
// addresses with a zone, and for IPv4-mapped, NAT64 and 6to4 forms of any of
// those.
func IsPublicIP(ip netip.Addr) bool {
	if !ip.IsValid() || ip.Zone() != "" {
		return false
	}
	ip = ip.Unmap()
	if ip.Is4() {
		return !containsAny(nonPublicIPv4, ip)
	}
	if nat64Prefix.Contains(ip) {
		b := ip.As16()
		return IsPublicIP(netip.AddrFrom4([4]byte(b[12:16])))
	}
	if !globalUnicastIPv6.Contains(ip) || containsAny(nonPublicIPv6, ip) {
		return false
	}
	if sixToFour.Contains(ip) {
		b := ip.As16()
		return IsPublicIP(netip.AddrFrom4([4]byte(b[2:6])))
	}
	return true
}

// containsAny reports whether one of prefixes holds ip.
func containsAny(prefixes []netip.Prefix, ip netip.Addr) bool {
	for _, p := range prefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// mustPrefixes parses the constant tables above; a typo there is a bug that
// must stop the program at start.
func mustPrefixes(cidrs ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(cidrs))
	for i, c := range cidrs {
		out[i] = netip.MustParsePrefix(c)
	}
	return out
}
