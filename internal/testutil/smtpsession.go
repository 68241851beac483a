package testutil

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// dropAfterBytes is how much of the body the server reads before a
// DropDuringData close: enough to be sure the client is inside DATA.
const dropAfterBytes = 64

// errDropped is what Data returns after closing the connection on purpose;
// go-smtp cannot write it anywhere, it only ends the transaction.
var errDropped = errors.New("testutil: connection dropped during DATA")

// errAuthRequired is the reply of real submission servers to MAIL before AUTH
// (RFC 4954 section 6); go-smtp's own ErrAuthRequired uses 502.
var errAuthRequired = &smtp.SMTPError{
	Code:         530,
	EnhancedCode: smtp.EnhancedCode{5, 7, 0},
	Message:      "Authentication required",
}

// errNestedMail answers MAIL within a transaction (RFC 5321 section 4.1.4).
var errNestedMail = &smtp.SMTPError{
	Code:         503,
	EnhancedCode: smtp.EnhancedCode{5, 5, 1},
	Message:      "Error: nested MAIL command",
}

// smtpSession is one client session; go-smtp creates a new one after EHLO and
// again after STARTTLS.
type smtpSession struct {
	server   *SMTPServer
	conn     *smtp.Conn
	tls      bool
	authUser string

	// Transaction state, cleared by Reset.
	mailOpen  bool // MAIL was accepted
	from      string
	mailOpts  MailOptions
	rcpts     []RcptOptions
	dataReply *Reply // the first StageData reply of the transaction's recipients
}

// newSession is the go-smtp backend.
func (s *SMTPServer) newSession(c *smtp.Conn) (smtp.Session, error) {
	_, isTLS := c.TLSConnectionState()
	return &smtpSession{server: s, conn: c, tls: isTLS}, nil
}

// AuthMechanisms offers PLAIN only when WithAuth was given.
func (ss *smtpSession) AuthMechanisms() []string {
	if ss.server.config.authUser == "" {
		return nil
	}
	return []string{sasl.Plain}
}

// Auth checks the PLAIN credentials against WithAuth's.
func (ss *smtpSession) Auth(mech string) (sasl.Server, error) {
	if ss.server.config.authUser == "" || mech != sasl.Plain {
		return nil, smtp.ErrAuthUnknownMechanism
	}
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if identity != "" && identity != username {
			return smtp.ErrAuthFailed
		}
		if username != ss.server.config.authUser || password != ss.server.config.authPass {
			return smtp.ErrAuthFailed
		}
		ss.authUser = username
		return nil
	}), nil
}

// Mail starts a transaction; with WithAuth it must come after AUTH.
func (ss *smtpSession) Mail(from string, opts *smtp.MailOptions) error {
	ss.server.stall(StageMail)
	if ss.server.config.authUser != "" && ss.authUser == "" {
		return errAuthRequired
	}
	if ss.server.throttle() {
		return errThrottled
	}
	if ss.mailOpen {
		// As Postfix and most servers answer: a transaction left open (its
		// RCPTs all refused) must be ended with RSET first.
		return errNestedMail
	}
	ss.mailOpen = true
	ss.from = from
	ss.mailOpts = MailOptions{}
	if opts != nil {
		ss.mailOpts = MailOptions{
			Size:       opts.Size,
			Body:       string(opts.Body),
			Return:     string(opts.Return),
			EnvelopeID: opts.EnvelopeID,
			UTF8:       opts.UTF8,
			RequireTLS: opts.RequireTLS,
		}
	}
	return nil
}

// Rcpt counts the attempt and applies the recipient's next scripted reply.
func (ss *smtpSession) Rcpt(to string, opts *smtp.RcptOptions) error {
	ss.server.stall(StageRcpt)
	if helo := ss.conn.Hostname(); ss.server.config.refuseShortHelo && !strings.Contains(helo, ".") {
		ss.server.nextReply(to) // counts the attempt
		return &smtp.SMTPError{Code: 504, EnhancedCode: smtp.EnhancedCode{5, 5, 2},
			Message: "<" + helo + ">: Helo command rejected: need fully-qualified hostname"}
	}
	if reply, scripted := ss.server.nextReply(to); scripted {
		switch {
		case reply.Stage == StageRcpt && !reply.accepts():
			return reply.smtpError()
		case reply.Stage == StageData && ss.dataReply == nil:
			ss.dataReply = &reply
		}
	}
	rcpt := RcptOptions{Address: to}
	if opts != nil {
		for _, n := range opts.Notify {
			rcpt.Notify = append(rcpt.Notify, string(n))
		}
		rcpt.OriginalRecipient = opts.OriginalRecipient
	}
	ss.rcpts = append(ss.rcpts, rcpt)
	return nil
}

// Data reads the body, then answers the scripted DATA reply or accepts and
// records the message.
func (ss *smtpSession) Data(r io.Reader) error {
	if ss.server.dropDuringData() {
		return ss.drop(r)
	}
	body, err := io.ReadAll(r)
	if err != nil {
		// Usually smtp.ErrDataTooLarge, which go-smtp answers with 552.
		return err
	}
	ss.server.stall(StageData)
	if ss.server.shuttingDown() {
		return &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "test server shutting down"}
	}
	if ss.dataReply != nil && !ss.dataReply.accepts() {
		return ss.dataReply.smtpError()
	}

	msg := ReceivedMessage{
		From:        ss.from,
		Data:        body,
		ReceivedAt:  time.Now(),
		TLS:         ss.tls,
		AuthUser:    ss.authUser,
		Helo:        ss.conn.Hostname(),
		MailOptions: ss.mailOpts,
		Rcpts:       append([]RcptOptions(nil), ss.rcpts...),
		Connection:  ss.conn.Conn().RemoteAddr().String(),
	}
	for _, rc := range ss.rcpts {
		msg.To = append(msg.To, rc.Address)
	}
	ss.server.record(msg)

	if ss.dataReply != nil {
		// A scripted 2xx: accepted, with the script's text on the wire.
		return ss.dataReply.smtpError()
	}
	return nil
}

// drop reads a little of the body so the client is committed to DATA, then
// closes the socket without replying.
func (ss *smtpSession) drop(r io.Reader) error {
	buf := make([]byte, dropAfterBytes)
	_, _ = io.ReadAtLeast(r, buf, 1)
	if err := ss.conn.Conn().Close(); err != nil {
		return fmt.Errorf("%w: %w", errDropped, err)
	}
	return errDropped
}

// Reset clears the transaction (RSET, a new EHLO, or the end of DATA).
func (ss *smtpSession) Reset() {
	ss.mailOpen = false
	ss.from = ""
	ss.mailOpts = MailOptions{}
	ss.rcpts = nil
	ss.dataReply = nil
}

// Logout has nothing to release.
func (ss *smtpSession) Logout() error { return nil }
