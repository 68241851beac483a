package sanitize

import (
	"regexp"
	"strings"
)

// schemeInText finds, in plain text, what starts like a URL that HTML
// refuses: a script scheme up to the next space (its code has brackets of
// its own), or a data: URL up to the next space or bracket.
var schemeInText = regexp.MustCompile(`(?i)\b(?:(?:javascript|vbscript|livescript|mocha)\s*:\S*|data:[^\s()<>\[\]"']+)`)

// Text returns the plain-text part of a test-render without the URLs
// HTML(...) would have removed (D40): a script URL copied from a link's
// href, or written in a text template, is as unsafe to show there.
func Text(s string) string {
	return schemeInText.ReplaceAllStringFunc(s, func(u string) string {
		if dangerousURL(u) {
			return ""
		}
		return u
	})
}

// SafeLink reports whether a link's URL may be written out in plain text
// generated from HTML: web, mail and phone links, and relative ones.
func SafeLink(u string) bool {
	s := squash(u)
	for _, scheme := range []string{"http://", "https://", "mailto:", "tel:"} {
		if strings.HasPrefix(s, scheme) {
			return true
		}
	}
	colon := strings.IndexByte(s, ':')
	return colon < 0 || strings.ContainsAny(s[:colon], "/?#")
}
