package bounce

import (
	"mime"
	"strings"
)

// bounceText returns the human-readable text of a message: its text/plain
// parts (the HTML parts, tags stripped, when there is no text/plain),
// outside any returned original, at most maxTextScan bytes.
func bounceText(root *part) string {
	var plain, htmlParts []string
	size := 0
	root.walk(func(p *part) bool {
		if isEnclosedMessage(p.mediaType) || isHeadersOnly(p.mediaType) || size >= maxTextScan {
			return false
		}
		if len(p.children) > 0 || strings.HasPrefix(p.mediaType, "multipart/") {
			return true
		}
		switch p.mediaType {
		case "text/plain":
			plain = append(plain, string(p.body))
			size += len(p.body)
		case "text/html":
			htmlParts = append(htmlParts, string(p.body))
			size += len(p.body)
		}
		return false
	})
	text := strings.Join(plain, "\n")
	if text == "" && len(htmlParts) > 0 {
		text = htmlToText(strings.Join(htmlParts, "\n"))
	}
	if len(text) > maxTextScan {
		text = text[:maxTextScan]
	}
	return strings.ReplaceAll(text, "\r\n", "\n")
}

// asciiLower lowercases ASCII letters only, so that offsets in the result
// are offsets in s (strings.ToLower may change the length of non-ASCII
// text).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// decodedSubject returns the Subject with RFC 2047 encoded words decoded
// where the charset is known, lowercased.
func decodedSubject(h header) string {
	s := h.get("subject")
	dec := new(mime.WordDecoder)
	if d, err := dec.DecodeHeader(s); err == nil {
		s = d
	}
	return strings.ToLower(s)
}

// indexFirst returns the smallest offset at or after from where one of
// words occurs in lower, or -1.
func indexFirst(lower string, from int, words []string) int {
	best := -1
	for _, w := range words {
		if i := strings.Index(lower[from:], w); i >= 0 && (best < 0 || from+i < best) {
			best = from + i
		}
	}
	return best
}
