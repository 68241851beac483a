package dnscheck

import "strings"

// unescapeTXT turns a character-string as miekg/dns presents it (\" and \\
// escaped, unprintable bytes as \DDD) back into its wire bytes, so the values
// compared with what customers published are exactly what DNS holds.
func unescapeTXT(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		if v, ok := decimalEscape(s[i+1:]); ok {
			b.WriteByte(v)
			i += 3
			continue
		}
		b.WriteByte(s[i+1])
		i++
	}
	return b.String()
}

// decimalEscape reads the DDD of a \DDD escape at the start of s.
func decimalEscape(s string) (byte, bool) {
	if len(s) < 3 {
		return 0, false
	}
	v := 0
	for _, c := range []byte(s[:3]) {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	if v > 255 {
		return 0, false
	}
	return byte(v), true
}
