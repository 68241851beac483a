package bounce

import (
	"encoding/base64"
	"html"
	"strings"
)

// decodeTransfer undoes a Content-Transfer-Encoding. It never fails: bytes
// that do not decode are kept or dropped, whichever loses less, because a
// half-readable bounce still names its recipient.
func decodeTransfer(cte string, body []byte) []byte {
	switch strings.ToLower(strings.TrimSpace(cte)) {
	case "base64":
		return decodeBase64(body)
	case "quoted-printable":
		return decodeQuotedPrintable(body)
	default: // 7bit, 8bit, binary, unknown: as is
		return body
	}
}

// decodeBase64 decodes base64 ignoring line breaks and any other byte
// outside the alphabet, and stops at the first padding character.
func decodeBase64(body []byte) []byte {
	clean := make([]byte, 0, len(body))
	for _, c := range body {
		switch {
		case c == '=':
			goto done
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/':
			clean = append(clean, c)
		}
	}
done:
	if len(clean)%4 == 1 { // a lone trailing sextet carries no whole byte
		clean = clean[:len(clean)-1]
	}
	out := make([]byte, base64.RawStdEncoding.DecodedLen(len(clean)))
	n, _ := base64.RawStdEncoding.Decode(out, clean) // cannot fail on the filtered alphabet
	return out[:n]
}

// decodeQuotedPrintable decodes quoted-printable leniently: "=XX" becomes
// the byte, "=" at the end of a line joins lines, and any other "=" is
// kept as is.
func decodeQuotedPrintable(body []byte) []byte {
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '=' {
			out = append(out, c)
			continue
		}
		rest := body[i+1:]
		switch {
		case len(rest) >= 2 && isHex(rest[0]) && isHex(rest[1]):
			out = append(out, unhex(rest[0])<<4|unhex(rest[1]))
			i += 2
		case len(rest) >= 1 && rest[0] == '\n':
			i++
		case len(rest) >= 2 && rest[0] == '\r' && rest[1] == '\n':
			i += 2
		default:
			// Soft break with trailing whitespace ("=  \r\n")?
			j := 0
			for j < len(rest) && (rest[j] == ' ' || rest[j] == '\t') {
				j++
			}
			if j > 0 && j < len(rest) && (rest[j] == '\n' || rest[j] == '\r') {
				if rest[j] == '\r' && j+1 < len(rest) && rest[j+1] == '\n' {
					j++
				}
				i += j + 1
				continue
			}
			out = append(out, c)
		}
	}
	return out
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'F' || c >= 'a' && c <= 'f'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// htmlToText turns an HTML bounce into text good enough for the plain
// bounce heuristics: tags become line breaks (block structure carries the
// "phrase, then address" layout), entities are decoded.
func htmlToText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for {
		lt := strings.IndexByte(s, '<')
		if lt < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:lt])
		gt := strings.IndexByte(s[lt:], '>')
		if gt < 0 {
			break
		}
		tag := strings.ToLower(s[lt+1 : lt+gt])
		if isBreakingTag(tag) {
			b.WriteByte('\n')
		}
		s = s[lt+gt+1:]
	}
	return html.UnescapeString(b.String())
}

// isBreakingTag reports whether an HTML tag (its text between < and >)
// starts a new line when rendered.
func isBreakingTag(tag string) bool {
	tag = strings.TrimPrefix(tag, "/")
	name := tag
	if i := strings.IndexAny(tag, " \t\r\n/"); i >= 0 {
		name = tag[:i]
	}
	switch name {
	case "br", "p", "div", "tr", "li", "table", "h1", "h2", "h3", "h4", "pre", "blockquote":
		return true
	}
	return false
}
