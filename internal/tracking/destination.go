package tracking

import (
	"net/url"
	"strings"
)

// normalizeHref turns a decoded href into the URL a browser would follow:
// leading and trailing C0 controls and spaces are trimmed and tabs and
// newlines anywhere are dropped, as the WHATWG URL parser does. Tracking the
// normalized form makes the redirect land where the plain link would have.
func normalizeHref(href string) string {
	href = strings.TrimFunc(href, func(r rune) bool { return r <= ' ' })
	if strings.ContainsAny(href, "\t\n\r") {
		href = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, href)
	}
	return href
}

// validDestination reports whether a click may redirect to u: an absolute
// http or https URL with a host and no control characters (which could
// otherwise end up split across header lines of the 302).
func validDestination(u string) bool {
	for i := 0; i < len(u); i++ {
		if u[i] < ' ' || u[i] == 0x7f {
			return false
		}
	}
	parsed, err := url.Parse(u)
	if err != nil {
		return false
	}
	// url.Parse lowercases the scheme, so "HTTPS://" is accepted too.
	return (parsed.Scheme == "http" || parsed.Scheme == "https") && parsed.Host != ""
}
