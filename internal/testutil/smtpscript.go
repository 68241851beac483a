package testutil

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/emersion/go-smtp"
)

// Stage is a point of an SMTP transaction where the test server can be told
// to misbehave (stall) or to answer a scripted reply.
type Stage int

const (
	// StageConnect is the greeting, before any command.
	StageConnect Stage = iota + 1
	// StageMail is the reply to MAIL FROM.
	StageMail
	// StageRcpt is the reply to RCPT TO.
	StageRcpt
	// StageData is the final reply after the message body (after the
	// terminating dot), the reply that makes a message "sent" (D25).
	StageData
)

// String names the stage for failure messages.
func (s Stage) String() string {
	switch s {
	case StageConnect:
		return "connect"
	case StageMail:
		return "MAIL"
	case StageRcpt:
		return "RCPT"
	case StageData:
		return "DATA"
	default:
		return "Stage(" + strconv.Itoa(int(s)) + ")"
	}
}

// Reply is one scripted answer for a recipient (see SMTPServer.Script).
type Reply struct {
	// Stage is StageRcpt (the RCPT command is answered with this reply) or
	// StageData (RCPT is accepted and the end of DATA gets this reply).
	Stage Stage
	// Code is the SMTP reply code, such as 250, 451 or 550. A 2xx code
	// accepts: at StageData the message is recorded and the client sees this
	// code and Message.
	Code int
	// Enhanced is the RFC 3463 enhanced status code, such as "4.2.2"; empty
	// means the class default (X.0.0).
	Enhanced string
	// Message is the human text of the reply; empty means a generic text.
	Message string
}

// accepts reports whether the reply lets the transaction go on.
func (r Reply) accepts() bool { return r.Code < 400 }

// smtpError converts the reply to the error go-smtp writes on the wire.
func (r Reply) smtpError() *smtp.SMTPError {
	msg := r.Message
	if msg == "" {
		msg = fmt.Sprintf("scripted %s reply", r.Stage)
	}
	code := smtp.EnhancedCodeNotSet
	if r.Enhanced != "" {
		// validate already accepted the text, so the error cannot happen.
		code, _ = parseEnhancedCode(r.Enhanced)
	}
	return &smtp.SMTPError{Code: r.Code, EnhancedCode: code, Message: msg}
}

// validate rejects replies the server cannot produce; a bad script is a bug in
// the test, reported loudly by Script.
func (r Reply) validate() error {
	if r.Stage != StageRcpt && r.Stage != StageData {
		return fmt.Errorf("stage %s cannot be scripted per recipient (use StageRcpt or StageData)", r.Stage)
	}
	if r.Code < 200 || r.Code > 599 || (r.Code >= 300 && r.Code < 400) {
		return fmt.Errorf("code %d is not a 2xx, 4xx or 5xx reply", r.Code)
	}
	if r.Enhanced != "" {
		code, err := parseEnhancedCode(r.Enhanced)
		if err != nil {
			return err
		}
		if code[0] != r.Code/100 {
			return fmt.Errorf("enhanced code %s does not match class of %d", r.Enhanced, r.Code)
		}
	}
	return nil
}

// parseEnhancedCode reads "X.Y.Z" (RFC 3463).
func parseEnhancedCode(s string) (smtp.EnhancedCode, error) {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return smtp.EnhancedCode{}, fmt.Errorf("enhanced code %q is not X.Y.Z", s)
	}
	var code smtp.EnhancedCode
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 999 {
			return smtp.EnhancedCode{}, fmt.Errorf("enhanced code %q is not X.Y.Z", s)
		}
		code[i] = n
	}
	if code[0] != 2 && code[0] != 4 && code[0] != 5 {
		return smtp.EnhancedCode{}, fmt.Errorf("enhanced code %q must start with 2, 4 or 5", s)
	}
	return code, nil
}

// rcptScripts holds the scripted replies and counts delivery attempts per
// recipient. It is guarded by SMTPServer.mu.
type rcptScripts struct {
	perRcpt  map[string][]Reply // remaining replies of recipients given to Script
	all      []Reply            // the ScriptAll list
	allUsed  map[string]int     // how much of all each other recipient consumed
	attempts map[string]int     // RCPT commands seen per recipient
}

func newRcptScripts() rcptScripts {
	return rcptScripts{
		perRcpt:  make(map[string][]Reply),
		allUsed:  make(map[string]int),
		attempts: make(map[string]int),
	}
}

// next counts one attempt for rcpt and consumes its next reply; ok is false
// when nothing is scripted any more and the recipient is simply accepted.
func (s *rcptScripts) next(rcpt string) (reply Reply, ok bool) {
	key := normalizeAddress(rcpt)
	s.attempts[key]++
	if remaining, scripted := s.perRcpt[key]; scripted {
		if len(remaining) == 0 {
			return Reply{}, false
		}
		s.perRcpt[key] = remaining[1:]
		return remaining[0], true
	}
	used := s.allUsed[key]
	if used >= len(s.all) {
		return Reply{}, false
	}
	s.allUsed[key] = used + 1
	return s.all[used], true
}

// normalizeAddress is how recipients are compared: case-insensitively, as
// every test expects, though RFC 5321 lets the local part be case-sensitive.
func normalizeAddress(addr string) string {
	return strings.ToLower(strings.TrimSpace(addr))
}
