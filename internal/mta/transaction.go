package mta

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
)

// dsnNotify is what a relay is asked to report (D25: SUCCESS confirms
// delivery; FAILURE and DELAY feed bounces and delays).
const dsnNotify = "SUCCESS,FAILURE,DELAY"

// txOptions tune one transaction.
type txOptions struct {
	dsn bool // request DSN (RFC 3461) when the server offers it
}

// transaction is the state of one MAIL/RCPT/DATA exchange.
type transaction struct {
	s        *session
	env      Envelope
	results  []Result
	final    []bool // results[i] is decided
	accepted []int  // recipients accepted at RCPT, awaiting DATA
	reusable bool   // the connection may carry another transaction
	dsn      bool
	// stale: the pooled connection failed its RSET probe, so nothing of
	// this transaction reached a server that would act on it.
	stale bool
}

// transact runs one mail transaction and returns one result per recipient
// and whether the connection may be reused. RCPT replies decide each
// recipient; the final DATA reply decides every recipient accepted at RCPT;
// an I/O failure leaves every undecided recipient temporary. A pooled
// session (probe) whose RSET fails returns nil results: the server closed
// it while idle and took nothing, so the caller tries another connection
// without deferring anyone.
func (s *session) transact(ctx context.Context, env Envelope, data []byte, opts txOptions) ([]Result, bool) {
	t := &transaction{
		s:        s,
		env:      env,
		results:  make([]Result, len(env.Recipients)),
		final:    make([]bool, len(env.Recipients)),
		reusable: true,
		dsn:      opts.dsn && s.has("DSN"),
	}
	stop := s.guard(ctx)
	t.run(ctx, data)
	if !stop() {
		t.reusable = false
	}
	if t.stale {
		return nil, false
	}
	for i := range t.results {
		t.results[i].Recipient = env.Recipients[i]
		t.results[i].Host = s.host
		t.results[i].TLS = s.tls
		t.results[i].DSN = t.dsn && t.results[i].Code != 0
	}
	return t.results, t.reusable
}

// run performs the exchange, filling t.results: one pipelined group when
// the server offers PIPELINING (RFC 2920), one command at a time otherwise.
func (t *transaction) run(ctx context.Context, data []byte) {
	var valid []int
	for i, rcpt := range t.env.Recipients {
		if r, ok := checkRecipient(rcpt); !ok {
			t.decide(i, r)
			continue
		}
		valid = append(valid, i)
	}
	if len(valid) == 0 || !t.serverCanTake(data, valid) {
		return
	}
	if t.s.has("PIPELINING") {
		t.pipelined(ctx, data, valid)
		return
	}
	if !t.envelope(ctx, data, valid) || len(t.accepted) == 0 {
		return
	}
	t.data(ctx, data)
}

// serverCanTake refuses, without sending anything, what the server said it
// cannot accept: non-ASCII addresses without SMTPUTF8 (RFC 6531) and a
// message over its SIZE (RFC 1870).
func (t *transaction) serverCanTake(data []byte, valid []int) bool {
	s := t.s
	if !isASCII(t.env.From) || !allASCII(t.env.Recipients) {
		if !s.has("SMTPUTF8") {
			t.decideUndecided(failure(ClassPermanent, enhancedNeedsUTF8, "",
				"server does not support SMTPUTF8, required by a non-ASCII address"))
			return false
		}
	}
	if limit, err := strconv.ParseInt(s.ext["SIZE"], 10, 64); err == nil && limit > 0 && int64(len(data)) > limit {
		t.decideUndecided(failure(ClassPermanent, enhancedTooBig, "",
			fmt.Sprintf("message of %d bytes exceeds the server's limit of %d", len(data), limit)))
		return false
	}
	return true
}

// envelope sends MAIL and the RCPTs one at a time, to a server without
// PIPELINING, and records the replies. It returns false when the
// transaction cannot go on.
func (t *transaction) envelope(ctx context.Context, data []byte, valid []int) bool {
	s := t.s
	if s.probe {
		if err := s.reset(ctx); err != nil {
			t.stale, t.reusable = true, false
			return false
		}
	}
	mail, err := s.cmd(ctx, t.mailCommand(data))
	if err != nil {
		return t.lost(ctx, "exchanging MAIL FROM", err)
	}
	if !mail.positive() {
		t.reusable = t.reusable && !mail.closing()
		for _, i := range valid {
			t.decide(i, mail.result("", ""))
		}
		return false
	}
	s.open = true
	for _, i := range valid {
		rcpt, err := s.cmd(ctx, t.rcptCommand(t.env.Recipients[i]))
		if err != nil {
			return t.lost(ctx, "exchanging RCPT TO", err)
		}
		if !t.recipientReply(i, rcpt) {
			return false
		}
	}
	return true
}

// recipientReply records recipient i's RCPT reply: accepted (awaiting
// DATA) or decided by it. After a closing reply (421) the server is gone:
// every recipient not decided yet gets it, and it returns false.
func (t *transaction) recipientReply(i int, rcpt reply) bool {
	if rcpt.positive() {
		t.accepted = append(t.accepted, i)
		return true
	}
	t.decide(i, rcpt.result("", ""))
	if rcpt.closing() {
		t.reusable = false
		t.decideUndecided(rcpt.result("", ""))
		return false
	}
	return true
}

// data sends DATA, then the message when the server answers 354.
func (t *transaction) data(ctx context.Context, data []byte) {
	r, err := t.s.cmd(ctx, "DATA")
	if err != nil {
		t.lost(ctx, "exchanging DATA", err)
		return
	}
	if r.code != 354 {
		t.reusable = t.reusable && !r.closing()
		t.decideAccepted(r)
		return
	}
	t.message(ctx, data)
}

// message sends the dot-stuffed message after a 354 and applies the final
// reply to the recipients accepted at RCPT; that reply ends the
// transaction.
func (t *transaction) message(ctx context.Context, data []byte) {
	s := t.s
	s.setDeadline(ctx, s.limits.data)
	writeDotStuffed(s.bw, data)
	if err := s.flush(); err != nil {
		t.lost(ctx, "sending the message", err)
		return
	}
	s.setDeadline(ctx, s.limits.data)
	final, err := s.readReply()
	if err != nil {
		t.lost(ctx, "waiting for the reply after DATA", err)
		return
	}
	s.messages++
	s.open = false
	t.reusable = t.reusable && !final.closing()
	t.decideAccepted(final)
}

// mailCommand builds MAIL FROM with the parameters the server supports.
func (t *transaction) mailCommand(data []byte) string {
	s := t.s
	cmd := "MAIL FROM:<" + t.env.From + ">"
	if s.has("SIZE") {
		cmd += " SIZE=" + strconv.Itoa(len(data))
	}
	if s.has("8BITMIME") && has8Bit(data) {
		cmd += " BODY=8BITMIME"
	}
	if !isASCII(t.env.From) || !allASCII(t.env.Recipients) {
		cmd += " SMTPUTF8"
	}
	if t.dsn {
		cmd += " RET=HDRS"
		if t.env.EnvelopeID != "" {
			cmd += " ENVID=" + xtext(t.env.EnvelopeID)
		}
	}
	return cmd
}

// rcptCommand builds RCPT TO, asking for DSNs when enabled. ORCPT carries
// the address so a DSN names it even after forwarding.
func (t *transaction) rcptCommand(rcpt string) string {
	cmd := "RCPT TO:<" + rcpt + ">"
	if t.dsn {
		cmd += " NOTIFY=" + dsnNotify
		if isASCII(rcpt) {
			cmd += " ORCPT=rfc822;" + xtext(rcpt)
		}
	}
	return cmd
}

// decide records the outcome of recipient i.
func (t *transaction) decide(i int, r Result) {
	t.results[i] = r
	t.final[i] = true
}

// decideUndecided gives r to every recipient not decided yet.
func (t *transaction) decideUndecided(r Result) {
	for i := range t.results {
		if !t.final[i] {
			t.decide(i, r)
		}
	}
}

// decideAccepted applies a DATA reply to the recipients accepted at RCPT.
func (t *transaction) decideAccepted(r reply) {
	for _, i := range t.accepted {
		t.decide(i, r.result("", ""))
	}
}

// lost records a broken connection: every recipient not yet decided is
// temporary. It returns false so callers can stop in one statement.
func (t *transaction) lost(ctx context.Context, stage string, err error) bool {
	t.reusable = false
	err = t.s.describe(ctx, err)
	t.decideUndecided(failure(ClassTemporary, enhancedBadConnection, "",
		fmt.Sprintf("connection to %s failed while %s: %v", t.s.host, stage, err)))
	return false
}

// writeDotStuffed writes data as the DATA payload (RFC 5321 section
// 4.5.2): a '.' starting a line is doubled, the data ends with CRLF, then
// the terminating ".". data is CRLF-clean (precheck), so lines split
// exactly at CRLF.
func writeDotStuffed(w interface {
	Write([]byte) (int, error)
	WriteString(string) (int, error)
}, data []byte) {
	for len(data) > 0 {
		if data[0] == '.' {
			_, _ = w.WriteString(".")
		}
		i := bytes.Index(data, []byte("\r\n"))
		if i < 0 {
			_, _ = w.Write(data)
			_, _ = w.WriteString("\r\n")
			break
		}
		_, _ = w.Write(data[:i+2])
		data = data[i+2:]
	}
	_, _ = w.WriteString(".\r\n")
}

// allASCII reports whether every address is 7-bit.
func allASCII(addrs []string) bool {
	for _, a := range addrs {
		if !isASCII(a) {
			return false
		}
	}
	return true
}
