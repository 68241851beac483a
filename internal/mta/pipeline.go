package mta

import "context"

// pipelined runs the transaction as one pipelined group (RFC 2920), as
// Postfix does with a server that offers PIPELINING: RSET (when the
// connection comes from a pool, or the last transaction was left open),
// MAIL, every RCPT and DATA go in one write, then the replies are read in
// order. A reused connection's transaction then costs two round trips
// (the group, the message) instead of three (RSET with MAIL and RCPT,
// DATA, the message) or five one command at a time. DATA ends the group, as RFC
// 2920 section 3.1 requires of a command that changes the state. The
// message follows only a 354 and only if a recipient was accepted; each
// recipient's outcome is the one the lock-step exchange gives (its RCPT
// reply, or the final reply for the accepted ones), so the trust issue's
// one transaction per recipient (D80) reads the same.
func (t *transaction) pipelined(ctx context.Context, data []byte, valid []int) {
	s := t.s
	reset := s.probe || s.open
	s.setDeadline(ctx, s.limits.command)
	if reset {
		s.send("RSET")
	}
	s.send(t.mailCommand(data))
	for _, i := range valid {
		s.send(t.rcptCommand(t.env.Recipients[i]))
	}
	s.send("DATA")
	if err := s.flush(); err != nil {
		if reset {
			t.stale, t.reusable = true, false
			return
		}
		t.lost(ctx, "sending MAIL FROM", err)
		return
	}
	if reset {
		// Nothing is accepted before RSET's reply: a connection that fails
		// here (closed while idle, or RSET refused) is given up with no
		// transaction of ours in progress, and no message will follow on
		// it, whatever the server answers to the rest of the group. The
		// session is then out of step (that rest may end in a 354), so it
		// is closed without QUIT.
		if rset, err := s.readReply(); err != nil || rset.code != 250 {
			t.stale, t.reusable, s.broken = true, false, true
			return
		}
		s.open, s.probe = false, false
	}
	if !t.groupReplies(ctx, valid) {
		return
	}
	s.setDeadline(ctx, s.limits.command)
	dataReply, err := s.readReply()
	if err != nil {
		t.lost(ctx, "reading the reply to DATA", err)
		return
	}
	switch {
	case dataReply.code != 354:
		// Refused: with no recipient accepted, the 554 "no valid
		// recipients" RFC 2920 section 3.1 has servers answer; the next
		// group starts with RSET (s.open) if MAIL was accepted.
		t.reusable = t.reusable && !dataReply.closing()
		t.decideAccepted(dataReply)
	case len(t.accepted) == 0:
		t.endEmpty(ctx)
	default:
		t.message(ctx, data)
	}
}

// groupReplies reads the replies to MAIL and to each RCPT of a pipelined
// group. A refused MAIL decides every recipient; their RCPTs' replies (503,
// bad sequence) are only drained so the session stays in step. It returns
// false when the server closed (421) or the connection broke: the reply to
// DATA will not come.
func (t *transaction) groupReplies(ctx context.Context, valid []int) bool {
	s := t.s
	mail, err := s.readReply()
	if err != nil {
		return t.lost(ctx, "reading the reply to MAIL FROM", err)
	}
	if mail.positive() {
		s.open = true
	} else {
		for _, i := range valid {
			t.decide(i, mail.result("", ""))
		}
		if mail.closing() {
			t.reusable = false
			s.unread = len(valid) + 1 // the RCPTs and DATA
			return false
		}
	}
	for k, i := range valid {
		s.setDeadline(ctx, s.limits.command)
		rcpt, err := s.readReply()
		if err != nil {
			return t.lost(ctx, "reading the reply to RCPT TO", err)
		}
		if !mail.positive() {
			if rcpt.closing() {
				t.reusable = false
				s.unread = len(valid) - k // the other RCPTs and DATA
				return false
			}
			continue
		}
		if !t.recipientReply(i, rcpt) {
			s.unread = len(valid) - k // the other RCPTs and DATA
			return false
		}
	}
	return true
}

// endEmpty ends a transaction whose DATA the server accepted although it
// had accepted no recipient, where RFC 2920 section 3.1 has a server answer
// 554: that section asks the client then to "send a single dot" (rather
// than RSET, which fits a refused DATA), so the message input ends empty,
// no message is sent, and the session stays in step for the next
// transaction. Every recipient keeps the refusal it got at RCPT (or MAIL);
// the reply to the dot decides nobody.
func (t *transaction) endEmpty(ctx context.Context) {
	s := t.s
	s.setDeadline(ctx, s.limits.data)
	s.send(".")
	if err := s.flush(); err != nil {
		t.reusable = false
		return
	}
	end, err := s.readReply()
	if err != nil {
		t.reusable = false
		return
	}
	s.messages++
	s.open = false
	t.reusable = t.reusable && !end.closing()
}
