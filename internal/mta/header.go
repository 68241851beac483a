package mta

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"mime"
	"strings"
	"unicode/utf8"
)

// ErrInvalidMessage is wrapped by every Build error caused by the message's
// content (as opposed to a bug): a CR, LF or NUL in a header or address, a
// malformed address or header name, a reserved custom header.
var ErrInvalidMessage = errors.New("mta: invalid message")

// foldAt is where header lines are folded when a space allows it (RFC 5322
// section 2.1.1 recommends 78 characters).
const foldAt = 78

// maxLineOctets is the hard limit of RFC 5322 section 2.1.1, CRLF excluded.
const maxLineOctets = 998

// longWord is the length of a space-free run in an unstructured value beyond
// which it is written as encoded words, the only way to fold such a run and
// stay under maxLineOctets.
const longWord = 900

// encodedChunk is how many bytes of text go into one B-encoded word: 45 bytes
// become 60 base64 characters, so "=?utf-8?b?...?=" stays within the 75
// characters RFC 2047 allows.
const encodedChunk = 45

// invalidf wraps ErrInvalidMessage with a description.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidMessage}, args...)...)
}

// hasBreakOrNUL reports whether s contains CR, LF or NUL: the characters that
// would let a value end a header early or smuggle SMTP commands.
func hasBreakOrNUL(s string) bool {
	return strings.ContainsAny(s, "\r\n\x00")
}

// checkValue refuses a header value (or any text that lands in the header
// section) containing CR, LF or NUL.
func checkValue(what, value string) error {
	if hasBreakOrNUL(value) {
		return invalidf("%s contains CR, LF or NUL", what)
	}
	return nil
}

// checkHeaderName accepts RFC 5322 field names: printable ASCII except ':'.
func checkHeaderName(name string) error {
	if name == "" {
		return invalidf("empty header name")
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 33 || c > 126 || c == ':' {
			return invalidf("header name %q has a character not allowed in a field name", name)
		}
	}
	return nil
}

// isPlainASCII reports whether s holds only printable ASCII, space and tab,
// so it can go into a header without encoding.
func isPlainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < ' ' || c > '~') && c != '\t' {
			return false
		}
	}
	return true
}

// hasLongWord reports whether s has a run without spaces longer than
// longWord, which folding could not break.
func hasLongWord(s string) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' || s[i] == '\t' {
			run = 0
			continue
		}
		if run++; run > longWord {
			return true
		}
	}
	return false
}

// encodeUnstructured returns value ready for an unstructured header such as
// Subject: unchanged when it is plain ASCII with foldable words, else RFC
// 2047 encoded words (Q for mostly-Latin text, which stays readable in raw
// form; B chunks when a single word is too long to fold).
func encodeUnstructured(value string) string {
	if hasLongWord(value) {
		return encodeWordsB(value)
	}
	if isPlainASCII(value) {
		return value
	}
	return mime.QEncoding.Encode("utf-8", value)
}

// encodeWordsB splits s into UTF-8-safe chunks and B-encodes each one as its
// own encoded word, separated by spaces where the header may be folded
// (spaces between encoded words are not part of the decoded text).
func encodeWordsB(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		n := min(encodedChunk, len(s))
		for n < len(s) && n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		if n == 0 { // a malformed sequence longer than a chunk: cut anyway
			n = min(encodedChunk, len(s))
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("=?utf-8?b?")
		b.WriteString(base64.StdEncoding.EncodeToString([]byte(s[:n])))
		b.WriteString("?=")
		s = s[n:]
	}
	return b.String()
}

// writeHeader writes "Name: value" folded at spaces so lines stay near
// foldAt characters, and fails if a line would still exceed maxLineOctets.
// The value must already be free of CR, LF and NUL and encoded as needed.
// Folding only ever turns an existing space into CRLF + space, so unfolding
// restores the value exactly.
func writeHeader(b *bytes.Buffer, name, value string) error {
	b.WriteString(name)
	b.WriteString(":")
	lineLen := len(name) + 1
	prevEmpty := false
	for i, word := range strings.Split(value, " ") {
		// The first word follows the colon's space; later ones get the space
		// that separated them in value, which may become a fold. Runs of
		// spaces never fold (no line is only whitespace, and parsers that
		// trim line ends on unfolding lose nothing).
		fold := i > 0 && word != "" && !prevEmpty && lineLen+1+len(word) > foldAt && lineLen > len(name)+1
		prevEmpty = word == ""
		if fold {
			b.WriteString("\r\n")
			lineLen = 0
		}
		b.WriteByte(' ')
		b.WriteString(word)
		lineLen += 1 + len(word)
		if lineLen > maxLineOctets {
			return invalidf("header %s has a word too long to fold under %d octets", name, maxLineOctets)
		}
	}
	b.WriteString("\r\n")
	return nil
}
