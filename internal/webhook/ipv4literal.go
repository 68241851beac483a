package webhook

import (
	"errors"
	"net/netip"
	"strconv"
	"strings"
)

// errBadIPv4 means a host that must be read as an IPv4 address is not one.
var errBadIPv4 = errors.New("malformed IPv4 address")

// looksLikeIPv4 reports whether host must be read as an IPv4 address rather
// than a name, the way browsers (the WHATWG URL standard) and the C
// library's inet_aton decide: its last label is a number, decimal or 0x hex.
// "127.1", "2130706433", "0x7f000001" and "0177.0.0.1" all qualify, and
// so does "1.2.3.999", which must then be refused rather than looked up.
func looksLikeIPv4(host string) bool {
	host = strings.TrimSuffix(host, ".")
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	if hex, ok := strings.CutPrefix(strings.ToLower(last), "0x"); ok {
		return strings.Trim(hex, "0123456789abcdef") == ""
	}
	return strings.Trim(last, "0123456789") == ""
}

// parseIPv4Loose reads every spelling inet_aton accepts: one to four parts
// separated by dots (one trailing dot allowed), each decimal, octal with a
// leading 0, or hex with 0x; the last part fills the remaining bytes, so
// "127.1" is 127.0.0.1 and "2130706433" is too. Go's net and url packages
// only know the dotted-quad form, which is why an attacker would try these.
func parseIPv4Loose(host string) (netip.Addr, error) {
	parts := strings.Split(strings.TrimSuffix(host, "."), ".")
	if len(parts) > 4 {
		return netip.Addr{}, errBadIPv4
	}
	values := make([]uint64, len(parts))
	for i, p := range parts {
		v, err := parseIPv4Part(p)
		if err != nil {
			return netip.Addr{}, err
		}
		values[i] = v
	}

	// Every part but the last is one byte; the last covers what is left.
	last := len(values) - 1
	var n uint64
	for _, v := range values[:last] {
		if v > 0xff {
			return netip.Addr{}, errBadIPv4
		}
		n = n<<8 | v
	}
	restBits := uint(8 * (4 - last))
	if values[last] >= 1<<restBits {
		return netip.Addr{}, errBadIPv4
	}
	n = n<<restBits | values[last]
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), nil
}

// parseIPv4Part reads one part in the base its prefix selects. "0x" alone is
// zero, as inet_aton has it.
func parseIPv4Part(p string) (uint64, error) {
	if p == "" {
		return 0, errBadIPv4
	}
	base := 10
	switch lower := strings.ToLower(p); {
	case strings.HasPrefix(lower, "0x"):
		base, p = 16, p[2:]
		if p == "" {
			return 0, nil
		}
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	// 32 bits is the largest any part may be; ParseUint refuses overflow
	// and signs.
	v, err := strconv.ParseUint(p, base, 32)
	if err != nil {
		return 0, errBadIPv4
	}
	return v, nil
}
