package mta

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// maxReplyLines bounds a multi-line reply, so a hostile server cannot make
// the client buffer without end (EHLO answers have a dozen lines).
const maxReplyLines = 128

// reply is one SMTP server reply.
type reply struct {
	code     int
	enhanced string   // RFC 3463 code when the server sent one
	lines    []string // text of each line, enhanced code stripped
}

// text joins the reply's lines.
func (r reply) text() string { return strings.Join(r.lines, " ") }

// positive reports a 2xx or 3xx reply.
func (r reply) positive() bool { return r.code >= 200 && r.code < 400 }

// closing reports a 421, after which the server closes the connection
// (RFC 5321 section 3.8), so it must not be reused.
func (r reply) closing() bool { return r.code == 421 }

// result turns the reply into the outcome of one recipient.
func (r reply) result(rcpt, host string) Result {
	enhanced := r.enhanced
	if enhanced == "" {
		enhanced = derivedEnhanced(r.code)
	}
	return Result{
		Recipient: rcpt,
		Class:     Classify(r.code, r.enhanced),
		Code:      r.code,
		Enhanced:  enhanced,
		Message:   r.text(),
		Host:      host,
	}
}

// replyError is a reply that stopped a session before its transaction
// (greeting, EHLO, STARTTLS, AUTH).
type replyError struct {
	command string
	reply   reply
}

// Error names the command and the server's text; the codes travel in the
// Result's own fields (see setupFailure), so they are not repeated here.
func (e *replyError) Error() string {
	return fmt.Sprintf("%s refused: %s", e.command, e.reply.text())
}

// errProtocol marks a reply that is not SMTP.
var errProtocol = errors.New("mta: malformed SMTP reply")

// parseReplyLine splits "250-text" / "250 text" / "250" into its code, its
// text and whether more lines follow.
func parseReplyLine(line string) (code int, text string, more bool, err error) {
	if len(line) < 3 {
		return 0, "", false, fmt.Errorf("%w: %q", errProtocol, truncate(line, 64))
	}
	code, convErr := strconv.Atoi(line[:3])
	if convErr != nil || code < 200 || code > 599 {
		return 0, "", false, fmt.Errorf("%w: %q", errProtocol, truncate(line, 64))
	}
	if len(line) == 3 {
		return code, "", false, nil
	}
	switch line[3] {
	case ' ':
		return code, line[4:], false, nil
	case '-':
		return code, line[4:], true, nil
	}
	return 0, "", false, fmt.Errorf("%w: %q", errProtocol, truncate(line, 64))
}

// splitEnhanced finds an RFC 3463 code at the start of the reply's first
// line (RFC 2034: "X.Y.Z text", with X the class of the basic code) and
// strips it from every line that repeats it.
func (r *reply) splitEnhanced() {
	if len(r.lines) == 0 {
		return
	}
	first, _, _ := strings.Cut(r.lines[0], " ")
	if !isEnhancedCode(first, r.code/100) {
		return
	}
	r.enhanced = first
	for i, line := range r.lines {
		if rest, ok := strings.CutPrefix(line, first); ok && (rest == "" || rest[0] == ' ') {
			r.lines[i] = strings.TrimPrefix(rest, " ")
		}
	}
}

// isEnhancedCode checks "class.subject.detail" with 1-3 digit subject and
// detail (RFC 3463 section 2).
func isEnhancedCode(s string, class int) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 3 || parts[0] != strconv.Itoa(class) {
		return false
	}
	for _, p := range parts[1:] {
		if len(p) == 0 || len(p) > 3 {
			return false
		}
		for i := 0; i < len(p); i++ {
			if p[i] < '0' || p[i] > '9' {
				return false
			}
		}
	}
	return true
}

// xtext encodes a DSN parameter value (RFC 3461 section 4): printable ASCII
// except '+' and '=' stays, anything else becomes "+HH".
func xtext(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c > ' ' && c <= '~' && c != '+' && c != '=' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('+')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&0x0f])
	}
	return b.String()
}
