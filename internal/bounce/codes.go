package bounce

import "strings"

// reply is an SMTP reply found in free text.
type reply struct {
	code   int    // basic code (550), 0 when only an enhanced code was found
	status string // enhanced code ("5.1.1"), "" when only a basic code was found
	start  int    // offset of the reply in the text
}

// findReply returns the first SMTP reply in s: a basic code followed by an
// enhanced code ("550 5.1.1", "550-5.1.1", "#550 5.1.1"), a lone enhanced
// code, or a lone basic code where replies are quoted (at the start of a
// line, or after a quote, colon or parenthesis: "said: 550 ...",
// "returned '550 ...'"). Numbers in prose, IP addresses and version numbers
// are not replies.
func findReply(s string) (reply, bool) {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) || (i > 0 && !isCodeBoundary(s[i-1])) {
			continue
		}
		if n := enhancedCodeAt(s, i); n > 0 {
			return reply{status: s[i : i+n], start: i}, true
		}
		code, n := basicCodeAt(s, i)
		if code == 0 {
			continue
		}
		// "550 5.1.1" / "550-5.1.1" / "554: 5.7.1"
		j := i + n
		for j < len(s) && (s[j] == ' ' || s[j] == '-' || s[j] == ':') && j-(i+n) < 3 {
			j++
		}
		if m := enhancedCodeAt(s, j); m > 0 && j > i+n {
			return reply{code: code, status: s[j : j+m], start: i}, true
		}
		if quotedPosition(s, i) {
			return reply{code: code, start: i}, true
		}
	}
	return reply{}, false
}

// findEnhancedCode returns the first enhanced status code (RFC 3463) in s.
func findEnhancedCode(s string) string {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) || (i > 0 && !isCodeBoundary(s[i-1])) {
			continue
		}
		if n := enhancedCodeAt(s, i); n > 0 {
			return s[i : i+n]
		}
	}
	return ""
}

// enhancedCodeAt returns the length of an enhanced status code
// (class.subject.detail; class 2, 4 or 5; subject and detail of 1 to 3
// digits) starting at s[i], or 0. The code must not continue into more
// digits or dotted numbers, which keeps IP addresses out.
func enhancedCodeAt(s string, i int) int {
	if i >= len(s) || (s[i] != '2' && s[i] != '4' && s[i] != '5') {
		return 0
	}
	j := i + 1
	for k := 0; k < 2; k++ {
		if j >= len(s) || s[j] != '.' {
			return 0
		}
		j++
		d := 0
		for j < len(s) && isDigit(s[j]) && d < 4 {
			j++
			d++
		}
		if d == 0 || d > 3 {
			return 0
		}
	}
	if j < len(s) && (isDigit(s[j]) || s[j] == '.' && j+1 < len(s) && isDigit(s[j+1])) {
		return 0
	}
	return j - i
}

// basicCodeAt returns a basic SMTP reply code (2xx, 4xx, 5xx) starting at
// s[i] and its length, or 0. The code must end the string or be followed
// by a space, a hyphen (multi-line reply) or a colon.
func basicCodeAt(s string, i int) (int, int) {
	if i+3 > len(s) || (s[i] != '2' && s[i] != '4' && s[i] != '5') || !isDigit(s[i+1]) || !isDigit(s[i+2]) {
		return 0, 0
	}
	if i+3 < len(s) {
		switch s[i+3] {
		case ' ', '-', ':', '\t', '\r', '\n':
		default:
			return 0, 0
		}
	}
	return int(s[i]-'0')*100 + int(s[i+1]-'0')*10 + int(s[i+2]-'0'), 3
}

// quotedPosition reports whether offset i is where a quoted reply starts:
// at the start of the text or of a line (after indentation), or after a
// quote, colon, parenthesis, '#' or ';'.
func quotedPosition(s string, i int) bool {
	j := i - 1
	for j >= 0 && (s[j] == ' ' || s[j] == '\t') {
		j--
	}
	if j < 0 {
		return true
	}
	return strings.IndexByte("\n\r'\":(#;[", s[j]) >= 0
}

// isCodeBoundary reports whether c may precede a code: not a digit, a
// dot, or a letter (which would make the digits part of a word or number).
func isCodeBoundary(c byte) bool {
	return !isDigit(c) && c != '.' && !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') && c != '_'
}

func isDigit(c byte) bool {
	return c >= '0' && c <= '9'
}
