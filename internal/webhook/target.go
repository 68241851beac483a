package webhook

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// maxURLLength bounds a webhook URL; longer ones are refused as malformed.
// Browsers and servers commonly stop at about 2 KB too.
const maxURLLength = 2048

// maxHostLength and maxLabelLength are the DNS limits (RFC 1035).
const (
	maxHostLength  = 253
	maxLabelLength = 63
)

// target is a webhook URL that passed the syntax rules of D51, with its
// host rewritten to one canonical spelling, so registration and sending
// agree on what the host is.
type target struct {
	// url is the URL to request: host canonical, no fragment.
	url *url.URL
	// host is the canonical host: lower-case ASCII name without trailing
	// dot, or the IP address in Go's standard form.
	host string
	// ip is the address when host is an IP literal; invalid otherwise.
	ip netip.Addr
}

// parseTarget checks that raw is an absolute https URL with a usable host
// and port, and canonicalizes the host: IPv4 literals in any spelling
// inet_aton accepts become dotted quads, internationalized names become
// punycode.
func parseTarget(raw string) (*target, error) {
	if len(raw) > maxURLLength {
		return nil, fmt.Errorf("URL longer than %d bytes", maxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("parse URL: %w", err)
	}
	if u.Scheme != "https" {
		return nil, errors.New("URL scheme must be https")
	}
	if u.Opaque != "" || u.Host == "" {
		return nil, errors.New("URL has no host")
	}
	port := u.Port()
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("invalid port %q", port)
		}
	}

	t := &target{}
	if strings.HasPrefix(u.Host, "[") {
		ip, err := netip.ParseAddr(u.Hostname())
		if err != nil || !ip.Is6() {
			return nil, fmt.Errorf("invalid IPv6 literal %q", u.Hostname())
		}
		t.ip, t.host = ip, ip.String()
	} else {
		host, err := canonicalHost(u.Hostname())
		if err != nil {
			return nil, err
		}
		t.host = host
		if looksLikeIPv4(host) {
			ip, err := parseIPv4Loose(host)
			if err != nil {
				return nil, fmt.Errorf("host %q: %w", host, err)
			}
			t.ip, t.host = ip, ip.String()
		}
	}

	normalized := *u
	normalized.Fragment, normalized.RawFragment = "", ""
	normalized.Host = t.host
	if t.ip.Is6() {
		normalized.Host = "[" + t.host + "]"
	}
	if port != "" {
		normalized.Host = net.JoinHostPort(t.host, port)
	}
	t.url = &normalized
	return t, nil
}

// canonicalHost lower-cases an ASCII host, converts an internationalized
// one to punycode as the HTTP transport would, drops one trailing dot and
// checks the DNS length and character rules. Underscores are allowed: some
// internal names carry them.
func canonicalHost(host string) (string, error) {
	ascii := strings.ToLower(host)
	if !isASCII(ascii) {
		var err error
		if ascii, err = idna.Lookup.ToASCII(host); err != nil {
			return "", fmt.Errorf("host %q: %w", host, err)
		}
	}
	ascii = strings.TrimSuffix(ascii, ".")
	if ascii == "" || len(ascii) > maxHostLength {
		return "", fmt.Errorf("invalid host %q", host)
	}
	// Numeric hosts are judged by parseIPv4Loose, not by the label rules.
	if looksLikeIPv4(ascii) {
		return ascii, nil
	}
	for _, label := range strings.Split(ascii, ".") {
		if !validLabel(label) {
			return "", fmt.Errorf("invalid host %q", host)
		}
	}
	return ascii, nil
}

// validLabel checks one lower-case DNS label: 1 to 63 letters, digits,
// hyphens or underscores, not starting or ending with a hyphen.
func validLabel(label string) bool {
	if label == "" || len(label) > maxLabelLength || label[0] == '-' || label[len(label)-1] == '-' {
		return false
	}
	for i := 0; i < len(label); i++ {
		c := label[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// isASCII reports whether s holds only 7-bit characters.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
