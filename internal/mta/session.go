package mta

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"
)

// Default timeouts: RFC 5321 section 4.5.3.2 suggests 5 minutes per command
// and 10 for the final reply to DATA; the dial timeout matches net/http's.
const (
	DefaultDialTimeout    = 30 * time.Second
	DefaultCommandTimeout = 5 * time.Minute
	DefaultDataTimeout    = 10 * time.Minute
)

// quitTimeout bounds the polite QUIT before closing; nothing depends on it.
const quitTimeout = 2 * time.Second

// readBufferSize is also the longest reply line accepted (RFC 5321 allows
// 512 octets; real servers send a little more).
const readBufferSize = 4096

// timeouts bound each step of a session.
type timeouts struct {
	dial, command, data time.Duration
}

// withDefaults replaces zero or negative durations by the defaults.
func (t timeouts) withDefaults() timeouts {
	if t.dial <= 0 {
		t.dial = DefaultDialTimeout
	}
	if t.command <= 0 {
		t.command = DefaultCommandTimeout
	}
	if t.data <= 0 {
		t.data = DefaultDataTimeout
	}
	return t
}

// session is one SMTP client connection. It is used by one goroutine at a
// time (the pool hands it out exclusively).
type session struct {
	host     string   // server name: Result.Host and the TLS server name
	raw      net.Conn // the TCP connection; deadlines are set here
	conn     net.Conn // raw, or TLS over raw
	br       *bufio.Reader
	bw       *bufio.Writer
	ext      map[string]string // EHLO keywords (upper case) and parameters
	tls      bool
	limits   timeouts
	lastUsed time.Time
	messages int // transactions completed on this connection
	// open: a transaction was started (MAIL accepted) and not ended by a
	// reply to its data, so the next one must be preceded by RSET.
	open bool
	// probe: the session comes from a pool, where the server may have
	// closed it; the next transaction starts with RSET, which proves it
	// still works (pipelined with MAIL when the server allows, D80).
	probe bool
	// broken: a read or write failed (closed, reset, timed out, or a
	// reply that is not SMTP), so the connection is out of step and
	// nothing more is said on it: end closes it without QUIT.
	broken bool
	// unread counts the replies still due to a pipelined group that a
	// closing reply (421) cut short; the last is DATA's.
	unread int
}

// connectError marks a failure to reach the server at all (dial or
// greeting), reported with enhanced code 4.4.1 rather than 4.4.2.
type connectError struct{ err error }

func (e *connectError) Error() string { return e.err.Error() }
func (e *connectError) Unwrap() error { return e.err }

// tlsError marks a failed TLS handshake, which Direct answers by trying the
// same host again without STARTTLS.
type tlsError struct{ err error }

func (e *tlsError) Error() string { return "TLS handshake: " + e.err.Error() }
func (e *tlsError) Unwrap() error { return e.err }

// dialSession connects to addr (host is the name the caller knows it by),
// optionally in implicit TLS, and reads the greeting.
func dialSession(ctx context.Context, dialer *net.Dialer, host, addr string, implicitTLS *tls.Config, limits timeouts) (*session, error) {
	dialCtx, cancel := context.WithTimeout(ctx, limits.dial)
	defer cancel()
	raw, err := dialer.DialContext(dialCtx, "tcp", addr)
	if err != nil {
		return nil, &connectError{fmt.Errorf("connecting to %s (%s): %w", host, addr, err)}
	}
	s := &session{host: host, raw: raw, conn: raw, limits: limits}
	s.br = bufio.NewReaderSize(raw, readBufferSize)
	s.bw = bufio.NewWriter(raw)
	stop := s.guard(ctx)
	greeting, err := s.greet(ctx, implicitTLS)
	if !stop() && err == nil {
		err = s.describe(ctx, net.ErrClosed)
	}
	if err != nil {
		s.close()
		return nil, &connectError{fmt.Errorf("%s (%s): %w", host, addr, err)}
	}
	if greeting.code != 220 {
		s.end() // a 421 greeting is followed by the server's close: wait for it
		return nil, &replyError{command: "greeting", reply: greeting}
	}
	return s, nil
}

// greet completes implicit TLS when asked and reads the greeting.
func (s *session) greet(ctx context.Context, implicitTLS *tls.Config) (reply, error) {
	if implicitTLS != nil {
		if err := s.handshake(ctx, implicitTLS); err != nil {
			return reply{}, fmt.Errorf("TLS handshake: %w", s.describe(ctx, err))
		}
	}
	s.setDeadline(ctx, s.limits.command)
	greeting, err := s.readReply()
	if err != nil {
		return reply{}, fmt.Errorf("reading greeting: %w", s.describe(ctx, err))
	}
	return greeting, nil
}

// guard closes the connection if ctx ends while an operation is under way,
// which makes any blocked read or write return at once. The returned stop
// function reports false when that happened (the session is then dead).
func (s *session) guard(ctx context.Context) (stop func() bool) {
	return context.AfterFunc(ctx, func() { _ = s.raw.Close() })
}

// describe explains an I/O error, naming cancellation when that is the
// cause (the guard closed the socket).
func (s *session) describe(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("delivery interrupted: %w", ctxErr)
	}
	return err
}

// setDeadline bounds the next read or write by d and by ctx's deadline.
func (s *session) setDeadline(ctx context.Context, d time.Duration) {
	deadline := time.Now().Add(d)
	if ctxDeadline, ok := ctx.Deadline(); ok && ctxDeadline.Before(deadline) {
		deadline = ctxDeadline
	}
	_ = s.raw.SetDeadline(deadline)
}

// readLine reads one CRLF- (or LF-) terminated line.
func (s *session) readLine() (string, error) {
	line, err := s.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return "", fmt.Errorf("%w: line longer than %d bytes", errProtocol, readBufferSize)
	}
	if err != nil {
		return "", err
	}
	return strings.TrimRight(string(line), "\r\n"), nil
}

// readReply reads a possibly multi-line reply; a failure marks the
// session broken.
func (s *session) readReply() (reply, error) {
	r, err := s.readReplyLines()
	if err != nil {
		s.broken = true
	}
	return r, err
}

// readReplyLines reads the lines of one reply.
func (s *session) readReplyLines() (reply, error) {
	var r reply
	for i := 0; ; i++ {
		line, err := s.readLine()
		if err != nil {
			return reply{}, err
		}
		code, text, more, err := parseReplyLine(line)
		if err != nil {
			return reply{}, err
		}
		if i == 0 {
			r.code = code
		} else if code != r.code {
			return reply{}, fmt.Errorf("%w: code changed from %d to %d within a reply", errProtocol, r.code, code)
		}
		r.lines = append(r.lines, text)
		if !more {
			break
		}
		if i >= maxReplyLines {
			return reply{}, fmt.Errorf("%w: more than %d lines", errProtocol, maxReplyLines)
		}
	}
	r.splitEnhanced()
	return r, nil
}

// send writes one command line without flushing.
func (s *session) send(line string) {
	s.bw.WriteString(line)
	s.bw.WriteString("\r\n")
}

// flush writes what send buffered; a failure marks the session broken.
func (s *session) flush() error {
	err := s.bw.Flush()
	if err != nil {
		s.broken = true
	}
	return err
}

// cmd sends one command and reads its reply within the command timeout.
func (s *session) cmd(ctx context.Context, line string) (reply, error) {
	s.setDeadline(ctx, s.limits.command)
	s.send(line)
	if err := s.flush(); err != nil {
		return reply{}, err
	}
	return s.readReply()
}

// hello sends EHLO, falling back to HELO when the server does not know
// EHLO, and records the extensions offered.
func (s *session) hello(ctx context.Context, name string) error {
	r, err := s.cmd(ctx, "EHLO "+name)
	if err != nil {
		return s.describe(ctx, err)
	}
	if r.code == 250 {
		s.ext = make(map[string]string, len(r.lines))
		for _, line := range r.lines[1:] {
			keyword, param, _ := strings.Cut(line, " ")
			s.ext[strings.ToUpper(keyword)] = param
		}
		return nil
	}
	if r.code < 500 || r.code == 554 {
		return &replyError{command: "EHLO", reply: r}
	}
	r, err = s.cmd(ctx, "HELO "+name)
	if err != nil {
		return s.describe(ctx, err)
	}
	if r.code != 250 {
		return &replyError{command: "HELO", reply: r}
	}
	s.ext = map[string]string{}
	return nil
}

// has reports whether the server offered an EHLO extension.
func (s *session) has(keyword string) bool {
	_, ok := s.ext[keyword]
	return ok
}

// startTLS upgrades the connection (RFC 3207). A refusal is a *replyError
// and leaves the session usable in clear text; a failed handshake is a
// *tlsError and leaves it dead. The caller must send EHLO again.
func (s *session) startTLS(ctx context.Context, config *tls.Config) error {
	r, err := s.cmd(ctx, "STARTTLS")
	if err != nil {
		return s.describe(ctx, err)
	}
	if r.code != 220 {
		return &replyError{command: "STARTTLS", reply: r}
	}
	// Anything already buffered was sent before the handshake, in clear
	// text, and would be read as if protected (CVE-2011-0411 style
	// command injection): refuse it.
	if s.br.Buffered() > 0 {
		return &tlsError{errors.New("server sent data before the TLS handshake")}
	}
	if err := s.handshake(ctx, config); err != nil {
		return &tlsError{s.describe(ctx, err)}
	}
	s.ext = nil
	return nil
}

// handshake runs the TLS client handshake over raw and switches the
// reader and writer to it.
func (s *session) handshake(ctx context.Context, config *tls.Config) error {
	if config.ServerName == "" && !config.InsecureSkipVerify {
		config = config.Clone()
		config.ServerName = s.host
	}
	conn := tls.Client(s.raw, config)
	s.setDeadline(ctx, s.limits.command)
	if err := conn.HandshakeContext(ctx); err != nil {
		return err
	}
	s.conn, s.tls = conn, true
	s.br.Reset(conn)
	s.bw.Reset(conn)
	return nil
}

// errNoAuthPlain is returned when credentials are configured but the server
// does not offer AUTH PLAIN.
var errNoAuthPlain = errors.New("server does not offer AUTH PLAIN")

// authPlain authenticates with SASL PLAIN (RFC 4616), the initial response
// sent with the command (RFC 4954).
func (s *session) authPlain(ctx context.Context, user, pass string) error {
	mechanisms := strings.Fields(strings.ToUpper(s.ext["AUTH"]))
	if !s.has("AUTH") || !slices.Contains(mechanisms, "PLAIN") {
		return errNoAuthPlain
	}
	token := base64.StdEncoding.EncodeToString([]byte("\x00" + user + "\x00" + pass))
	r, err := s.cmd(ctx, "AUTH PLAIN "+token)
	if err != nil {
		return s.describe(ctx, err)
	}
	if r.code != 235 {
		return &replyError{command: "AUTH", reply: r}
	}
	return nil
}

// reset sends RSET, which also proves a pooled connection still works.
func (s *session) reset(ctx context.Context) error {
	r, err := s.cmd(ctx, "RSET")
	if err != nil {
		return err
	}
	if r.code != 250 {
		return &replyError{command: "RSET", reply: r}
	}
	s.open = false
	s.probe = false
	return nil
}

// ready makes the session ready for a new transaction: RSET when the last
// one was left open (RCPTs all refused, DATA refused), nothing otherwise,
// so consecutive transactions cost no extra round trip. A server offering
// PIPELINING gets that RSET at the head of the next transaction's group
// instead (transaction.pipelined), which costs no round trip either.
func (s *session) ready(ctx context.Context) error {
	if !s.open || s.has("PIPELINING") {
		return nil
	}
	stop := s.guard(ctx)
	err := s.reset(ctx)
	if !stop() && err == nil {
		err = s.describe(ctx, net.ErrClosed)
	}
	return err
}

// quit says goodbye politely within quitTimeout, then closes. After the
// 221 it waits (within the same bound) for the server to close its side,
// as RFC 5321 section 4.1.1.10 has the server do: a pool that then opens
// another connection to that server never has one more open there than
// its limit, even for a moment.
func (s *session) quit() {
	_ = s.raw.SetDeadline(time.Now().Add(min(quitTimeout, s.limits.command)))
	s.send("QUIT")
	if s.bw.Flush() == nil {
		if r, err := s.readReply(); err == nil && r.code == 221 {
			_, _ = s.br.ReadByte() // returns at the server's close (EOF)
		}
	}
	s.close()
}

// end closes a session that is not kept: with QUIT, waiting for the
// server's close, while the server is still talking to us (a 421, a
// refused RSET, a connection retired), so a pool that then opens another
// never has one more open at the server than its limit, even for a
// moment (D80); at once when the connection is broken, where QUIT could
// only wait. After a 421 the server closes by itself (RFC 5321 section
// 3.8) and the QUIT finds the close; one that keeps the connection open
// answers QUIT and closes then.
func (s *session) end() {
	if s.broken || !s.drain() {
		s.close()
		return
	}
	s.quit()
}

// drain reads the replies still due to a group cut short by a 421
// (session.unread), within quitTimeout, so QUIT is read as a command. It
// reports false when QUIT cannot follow: the server closed meanwhile (the
// close end waits for), or it answered DATA with 354 (a server that kept
// going after a 421 to one RCPT and accepted another), where anything sent
// would be taken as the message; the connection is then dropped.
func (s *session) drain() bool {
	if s.unread == 0 {
		return true
	}
	_ = s.raw.SetDeadline(time.Now().Add(min(quitTimeout, s.limits.command)))
	for ; s.unread > 0; s.unread-- {
		r, err := s.readReply()
		if err != nil || (s.unread == 1 && r.code == 354) {
			return false
		}
	}
	return true
}

// close drops the connection at once. Closing the TCP socket rather than
// the TLS layer never blocks on a peer that does not read.
func (s *session) close() { _ = s.raw.Close() }
