package mta

import (
	"strconv"
	"strings"
)

// paramChunk bounds the value carried by one parameter section, so a
// parameter never makes a header line much longer than foldAt.
const paramChunk = 60

// formatParam renders a MIME parameter such as a filename. A short
// printable-ASCII value is a quoted string; anything else uses RFC 2231:
// percent-encoded UTF-8 after a "utf-8" charset and an empty language
// (name*=utf-8, two apostrophes, then the text), split into numbered sections
// (name*0*=, name*1*=, ...) when long. The sections are returned separately
// and joined with "; " by the caller, so header folding can break between
// them and no line exceeds the 998-octet limit whatever the filename.
func formatParam(name, value string) []string {
	if isPlainASCII(value) && !strings.Contains(value, "\t") && len(value) <= paramChunk {
		return []string{name + "=" + quoteParam(value)}
	}
	if isPlainASCII(value) && !strings.Contains(value, "\t") {
		var out []string
		for i := 0; len(value) > 0; i++ {
			n := min(paramChunk, len(value))
			out = append(out, name+"*"+strconv.Itoa(i)+"="+quoteParam(value[:n]))
			value = value[n:]
		}
		return out
	}
	encoded := percentEncode(value)
	if len(encoded) <= paramChunk {
		return []string{name + "*=utf-8''" + encoded}
	}
	var out []string
	for i := 0; len(encoded) > 0; i++ {
		n := min(paramChunk, len(encoded))
		// Never split a %XX escape, nor (for readers that decode each
		// section alone) a UTF-8 character, between two sections.
		if j := strings.LastIndexByte(encoded[:n], '%'); j >= 0 && j > n-3 && n < len(encoded) {
			n = j
		}
		for n > 3 && n < len(encoded) && isContinuationEscape(encoded[n:]) {
			n -= 3
		}
		section := encoded[:n]
		if i == 0 {
			section = "utf-8''" + section
		}
		out = append(out, name+"*"+strconv.Itoa(i)+"*="+section)
		encoded = encoded[n:]
	}
	return out
}

// quoteParam writes value as a quoted string, escaping '"' and '\'.
func quoteParam(value string) string {
	var b strings.Builder
	b.Grow(len(value) + 2)
	b.WriteByte('"')
	for i := 0; i < len(value); i++ {
		if c := value[i]; c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(value[i])
	}
	b.WriteByte('"')
	return b.String()
}

// percentEncode applies RFC 2231's extended-value encoding: attribute
// characters stay, every other byte of the UTF-8 text becomes %XX.
func percentEncode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s) * 3)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isAttrChar(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&0x0f])
	}
	return b.String()
}

// isAttrChar reports the characters RFC 2231 allows unencoded in an
// extended value: token characters except the asterisk, the apostrophe and
// the percent sign.
func isAttrChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$&+-.^_`|~", c) >= 0
}

// isContinuationEscape reports whether s starts with the escape of a UTF-8
// continuation byte (%80 to %BF).
func isContinuationEscape(s string) bool {
	return len(s) >= 3 && s[0] == '%' && strings.IndexByte("89AB", s[1]) >= 0
}
