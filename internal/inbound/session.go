package inbound

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"slices"

	"github.com/emersion/go-smtp"
)

// session is one SMTP connection's state. go-smtp calls Mail, Rcpt, Data
// and Reset from the connection's goroutine only; Logout may come from
// Close on another goroutine, so it touches nothing.
type session struct {
	srv    *Server
	conn   *smtp.Conn
	client netip.Addr
	log    *slog.Logger

	// started is set by an accepted MAIL. go-smtp keeps its own
	// transaction state, which a refused second MAIL does not reset, so
	// the session checks its own before RCPT and DATA.
	started    bool
	from       string
	recipients []string
	// memo is the handler's memory of this transaction (Memo), new at
	// every MAIL.
	memo *Memo
}

// newSession starts the state of a connection (go-smtp calls it at the
// first EHLO/HELO).
func (s *Server) newSession(c *smtp.Conn) (smtp.Session, error) {
	client := remoteIP(c.Conn().RemoteAddr())
	return &session{
		srv:    s,
		conn:   c,
		client: client,
		log:    s.log.With("client", client.String(), "helo", c.Hostname()),
	}, nil
}

// remoteIP is the client's IP, or the zero Addr for a non-TCP peer.
func remoteIP(addr net.Addr) netip.Addr {
	if tcp, ok := addr.(*net.TCPAddr); ok {
		return tcp.AddrPort().Addr().Unmap()
	}
	return netip.Addr{}
}

// Mail starts a transaction. Any reverse-path is accepted, the null sender
// "" included: that is how DSNs arrive (RFC 5321 4.5.5). The client's rate
// is counted here, once per transaction.
func (ss *session) Mail(from string, opts *smtp.MailOptions) error {
	ss.Reset()
	if opts != nil && opts.Size > ss.srv.opts.MaxMessageBytes {
		ss.refuse("MAIL", errTooLarge, "from", from, "declared_size", opts.Size)
		return errTooLarge
	}
	if !ss.srv.limiter.allow(ss.client, ss.srv.opts.Clock.Now()) {
		ss.refuse("MAIL", errRateLimited, "from", from)
		return errRateLimited
	}
	ss.started, ss.from, ss.memo = true, from, &Memo{}
	return nil
}

// Rcpt accepts a recipient whose domain the handler serves, up to the
// recipient cap.
func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if !ss.started {
		return errNoTransaction
	}
	if len(ss.recipients) >= ss.srv.opts.MaxRecipients {
		reply := tooManyRecipients(ss.srv.opts.MaxRecipients)
		ss.refuse("RCPT", reply, "to", to)
		return reply
	}
	rcpt, err := parseRecipient(to)
	switch {
	case errors.Is(err, errAddressLiteral):
		ss.refuse("RCPT", errNotOurDomain, "to", to)
		return errNotOurDomain
	case err != nil:
		ss.refuse("RCPT", errBadAddress, "to", to)
		return errBadAddress
	}
	if !ss.srv.calls.enter() {
		return errShuttingDown
	}
	ours := ss.srv.handler.AcceptsDomain(withMemo(ss.srv.ctx, ss.memo), rcpt.Domain)
	ss.srv.calls.leave()
	if !ours {
		ss.refuse("RCPT", errNotOurDomain, "to", to)
		return errNotOurDomain
	}
	ss.recipients = append(ss.recipients, rcpt.Address)
	return nil
}

// Data reads the message up to the cap and hands it to the handler once,
// with every accepted recipient.
func (ss *session) Data(r io.Reader) error {
	if !ss.started || len(ss.recipients) == 0 {
		return errNoTransaction
	}
	limit := ss.srv.opts.MaxMessageBytes
	// Reading one byte past the cap tells "exactly the cap" from "more";
	// the rest of a bigger message is discarded by go-smtp, unread here.
	raw, err := io.ReadAll(io.LimitReader(r, limit+1))
	switch {
	case err == nil && int64(len(raw)) > limit:
		ss.refuse("DATA", errTooLarge, "from", ss.from, "to", ss.recipients, "limit", limit)
		return errTooLarge
	case err != nil:
		// The client vanished or gave up mid-message; there is nobody to
		// answer and nothing complete to deliver.
		ss.log.Debug("inbound message aborted", "from", ss.from, "error", err)
		return err
	}
	if !ss.srv.calls.enter() {
		return errShuttingDown
	}
	_, tlsOn := ss.conn.TLSConnectionState()
	ctx := withPeer(withMemo(ss.srv.ctx, ss.memo), Peer{IP: ss.client, Helo: ss.conn.Hostname(), TLS: tlsOn})
	err = ss.srv.handler.Deliver(ctx, ss.from, slices.Clone(ss.recipients), raw)
	ss.srv.calls.leave()
	if err != nil {
		ss.log.Warn("inbound message refused", "stage", "DATA", "code", errDeliverFailed.Code,
			"from", ss.from, "to", ss.recipients, "size", len(raw), "error", err)
		return errDeliverFailed
	}
	ss.log.Info("inbound message accepted", "from", ss.from, "to", ss.recipients, "size", len(raw))
	return nil
}

// Reset forgets the transaction (RSET, a new EHLO, or the end of DATA).
func (ss *session) Reset() {
	ss.started, ss.from, ss.memo = false, "", nil
	ss.recipients = nil
}

// Logout has nothing to free: the session holds no resources.
func (ss *session) Logout() error { return nil }

// refuse logs one refusal with its reply code, so operators can see why a
// sender's bounces are not landing.
func (ss *session) refuse(stage string, reply *smtp.SMTPError, attrs ...any) {
	attrs = append([]any{"stage", stage, "code", reply.Code, "reason", reply.Message}, attrs...)
	ss.log.Info("inbound SMTP refused", attrs...)
}
