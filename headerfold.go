package carteiro

import (
	"mime"
	"strings"
)

// Header line limits of RFC 5322 section 2.1.1, CRLF excluded.
const (
	// MaxHeaderLineOctets is the hard limit on any header line.
	MaxHeaderLineOctets = 998
	// headerFoldAt is where lines are folded when a space allows it (the
	// recommended 78 characters). The MTA folds the same way; its tests
	// check that it builds exactly the headers HeaderFieldFits accepts.
	headerFoldAt = 78
)

// EncodeHeaderValue is a custom header's value as it is written: plain
// ASCII kept verbatim (custom headers may be structured, such as
// List-Unsubscribe), anything else as RFC 2047 Q encoded words.
func EncodeHeaderValue(value string) string {
	for i := 0; i < len(value); i++ {
		if c := value[i]; (c < ' ' || c > '~') && c != '\t' {
			return mime.QEncoding.Encode("utf-8", value)
		}
	}
	return value
}

// HeaderFieldFits reports whether the field "name: value", with value
// already encoded, can be folded into lines of at most 998 octets (D66).
// Folding only turns an existing space into CRLF + space, and never after
// another space, so a long run without spaces, or a long name before the
// first one, cannot be folded.
func HeaderFieldFits(name, encoded string) bool {
	lineLen := len(name) + 1
	prevEmpty := false
	for i, word := range strings.Split(encoded, " ") {
		fold := i > 0 && word != "" && !prevEmpty && lineLen+1+len(word) > headerFoldAt && lineLen > len(name)+1
		prevEmpty = word == ""
		if fold {
			lineLen = 0
		}
		lineLen += 1 + len(word)
		if lineLen > MaxHeaderLineOctets {
			return false
		}
	}
	return true
}
