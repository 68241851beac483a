package submission

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/ratelimit"
)

// session is one connection's state, from EHLO (go-smtp starts a new one
// after STARTTLS).
type session struct {
	srv       *Server
	conn      *smtp.Conn
	client    netip.Addr
	log       *slog.Logger
	principal *app.Principal

	started    bool
	from       string
	recipients []string
}

func (s *Server) newSession(c *smtp.Conn, newConnection bool) (smtp.Session, error) {
	client := remoteIP(c.Conn().RemoteAddr())
	if newConnection {
		s.opts.Metrics.connections.Inc()
	}
	if newConnection && !s.allow("smtp-conn:"+client.String(), s.opts.ConnectionRule) {
		s.opts.Metrics.result("too_many_connections")
		return nil, errTooManyConnections
	}
	return &session{srv: s, conn: c, client: client, log: s.log.With("client", client.String())}, nil
}

func remoteIP(addr net.Addr) netip.Addr {
	if tcp, ok := addr.(*net.TCPAddr); ok {
		return tcp.AddrPort().Addr().Unmap()
	}
	return netip.Addr{}
}

// allow takes one token of key under rule; a limiter that cannot answer
// lets the client through, as the HTTP API does.
func (s *Server) allow(key string, r ratelimit.Rule) bool {
	return s.take(key, r).Allowed
}

// take is allow with the limiter's whole answer.
func (s *Server) take(key string, r ratelimit.Rule) ratelimit.Result {
	if r.Validate() != nil {
		return ratelimit.Result{Allowed: true}
	}
	res, err := s.opts.Limiter.Allow(s.ctx, key, r)
	if err != nil {
		s.log.Warn("rate limiter unavailable; SMTP client allowed", "err", err)
		return ratelimit.Result{Allowed: true}
	}
	return res
}

// mayAuthenticate is D74's rule: AUTH over TLS, or from a loopback client
// without it.
func (ss *session) mayAuthenticate() bool {
	if _, isTLS := ss.conn.TLSConnectionState(); isTLS {
		return true
	}
	return ss.client.IsLoopback() && !ss.srv.opts.LoopbackIsRemote
}

// AuthMechanisms are offered in EHLO only where AUTH is allowed.
func (ss *session) AuthMechanisms() []string {
	if !ss.mayAuthenticate() {
		return nil
	}
	return []string{sasl.Plain, sasl.Login}
}

// Auth checks the password as an API key; the username is free (D74).
func (ss *session) Auth(mech string) (sasl.Server, error) {
	if !ss.mayAuthenticate() {
		ss.srv.opts.Metrics.authFailures.Inc()
		return nil, errTLSRequired
	}
	switch mech {
	case sasl.Plain:
		return sasl.NewPlainServer(func(_, username, password string) error {
			return ss.checkKey(username, password)
		}), nil
	case sasl.Login:
		return newLoginServer(ss.checkKey), nil
	}
	return nil, smtp.ErrAuthUnknownMechanism
}

func (ss *session) checkKey(username, password string) error {
	// Failures are limited per IP (5 a minute, like dashboard login);
	// past the limit even a right key is refused until the bucket refills.
	limitKey := "smtp-auth:" + ss.client.String()
	if ss.srv.authBlocks.blocked(ss.client, time.Now()) {
		ss.srv.opts.Metrics.authFailures.Inc()
		return errAuthRateLimited
	}
	p, err := ss.srv.sender.Authenticate(ss.srv.ctx, strings.TrimSpace(password))
	var ce *carteiro.Error
	switch {
	case err == nil:
		ss.principal = p
		ss.log = ss.log.With("api_key_id", p.Key.ID)
		return nil
	case errors.As(err, &ce) && ce.Code == carteiro.CodeInvalidAPIKey:
		ss.srv.opts.Metrics.authFailures.Inc()
		if res := ss.srv.take(limitKey, ss.srv.opts.AuthFailureRule); !res.Allowed {
			ss.srv.authBlocks.block(ss.client, time.Now().Add(max(res.RetryAfter, time.Second)))
			ss.log.Info("SMTP submission AUTH refused: too many failures", "username", username)
			return errAuthRateLimited
		}
		ss.log.Info("SMTP submission AUTH refused: bad key", "username", username)
		return errBadKey
	}
	ss.log.Warn("SMTP submission AUTH could not be checked", "err", err)
	return errTemporary
}

// Mail starts a transaction of an authenticated client; the key's rate
// limit (the HTTP API's per-key bucket) is taken here, once per message.
func (ss *session) Mail(from string, opts *smtp.MailOptions) error {
	ss.Reset()
	if ss.principal == nil {
		ss.srv.opts.Metrics.result("not_authenticated")
		return errAuthRequired
	}
	if opts != nil && opts.Size > ss.srv.opts.MaxMessageBytes {
		ss.srv.opts.Metrics.result("too_large")
		return errTooLarge
	}
	if !ss.srv.allow("key:"+ss.principal.Key.ID, ss.srv.opts.PerKey) {
		ss.srv.opts.Metrics.result("rate_limited")
		return errRateLimited
	}
	ss.started, ss.from = true, from
	return nil
}

// Rcpt collects the envelope recipients, at most MaxRecipients.
func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if !ss.started {
		return errNoTransaction
	}
	if len(ss.recipients) >= MaxRecipients {
		ss.srv.opts.Metrics.result("too_many_recipients")
		return errTooManyRecipients
	}
	if _, err := carteiro.ParseAddress("to", to); err != nil {
		return errBadRecipient
	}
	ss.recipients = append(ss.recipients, to)
	return nil
}

// Data reads the message, maps it to POST /emails and accepts it through
// app.SendEmail; the 250 is written by go-smtp after this returns, so
// after the commit.
func (ss *session) Data(r io.Reader) error {
	if !ss.started || len(ss.recipients) == 0 {
		return errNoTransaction
	}
	limit := ss.srv.opts.MaxMessageBytes
	raw, err := readBounded(r, limit)
	switch {
	case errors.Is(err, errOverLimit):
		ss.srv.opts.Metrics.result("too_large")
		return errTooLarge
	case err != nil:
		// go-smtp's own refusals (552 past its reader's cap) pass as they
		// are; any other read failure (a line over 1000 octets) is D74's
		// unreadable message. A vanished client reads no reply at all.
		var se *smtp.SMTPError
		if errors.As(err, &se) {
			ss.srv.opts.Metrics.result("too_large")
			return se
		}
		ss.srv.opts.Metrics.result("invalid_message")
		return unreadable(strings.TrimPrefix(err.Error(), "smtp: "))
	}
	req, err := buildRequest(ss.recipients, raw)
	if err != nil {
		var se *smtp.SMTPError
		if errors.As(err, &se) {
			ss.srv.opts.Metrics.result("invalid_message")
			ss.log.Info("SMTP submission refused", "code", se.Code, "reason", se.Message)
			return se
		}
		return errTemporary
	}
	res, err := ss.srv.sender.SendEmail(ss.srv.ctx, ss.principal, req)
	if err != nil {
		reply, reason := refusal(err)
		ss.srv.opts.Metrics.result(reason)
		ss.log.Info("SMTP submission refused", "code", reply.Code, "reason", reason, "error", err)
		return reply
	}
	ss.srv.opts.Metrics.result("accepted")
	ss.log.Info("SMTP submission accepted", "email_id", res.ID, "recipients", len(ss.recipients), "size", len(raw))
	// D74: "250 2.0.0 queued id=<uuid>"; go-smtp writes a non-nil
	// SMTPError's code as given.
	return reply(250, smtp.EnhancedCode{2, 0, 0}, "queued id="+res.ID)
}

func (ss *session) Reset() {
	ss.started, ss.from, ss.recipients = false, "", nil
}

func (ss *session) Logout() error { return nil }
