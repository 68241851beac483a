package testutil

import (
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// shutdownWait bounds how long cleanup waits for connection goroutines; they
// end at once because their sockets are closed, this only guards a hang.
const shutdownWait = 5 * time.Second

// ReceivedMessage is one message the SMTP server accepted (250 after DATA).
type ReceivedMessage struct {
	// From is the MAIL FROM address, empty for the null sender <>.
	From string
	// To lists the accepted RCPT TO addresses in order, as the client sent them.
	To []string
	// Rcpts holds the DSN parameters of each entry of To, same order.
	Rcpts []RcptOptions
	// Data is the message exactly as received, with CRLF line endings and
	// dot-stuffing removed.
	Data []byte
	// ReceivedAt is the real time the message was accepted.
	ReceivedAt time.Time
	// TLS is true when the transaction ran after STARTTLS.
	TLS bool
	// AuthUser is the user that authenticated, empty without AUTH.
	AuthUser string
	// Helo is the name the client gave in EHLO/HELO.
	Helo string
	// MailOptions are the MAIL FROM parameters.
	MailOptions MailOptions
	// Connection names the TCP connection that carried the message (the
	// client's address and port): messages with the same Connection were
	// transactions of one session.
	Connection string
}

// MailOptions are the MAIL FROM parameters the client sent.
type MailOptions struct {
	// Size is the SIZE= value, 0 when absent.
	Size int64
	// Body is BODY= (7BIT, 8BITMIME, BINARYMIME), empty when absent.
	Body string
	// Return is the DSN RET= value (FULL or HDRS), empty when absent.
	Return string
	// EnvelopeID is the DSN ENVID= value, empty when absent.
	EnvelopeID string
	// UTF8 is true when the client sent SMTPUTF8.
	UTF8 bool
	// RequireTLS is true when the client sent REQUIRETLS.
	RequireTLS bool
}

// RcptOptions are the RCPT TO parameters of one recipient.
type RcptOptions struct {
	// Address is the recipient as the client sent it.
	Address string
	// Notify is the DSN NOTIFY= list (SUCCESS, FAILURE, DELAY or NEVER).
	Notify []string
	// OriginalRecipient is the DSN ORCPT= address, empty when absent.
	OriginalRecipient string
}

// SMTPServer is an in-process SMTP server for tests (go-smtp) listening on
// 127.0.0.1. It records every accepted message, can answer scripted replies
// per recipient, and can stall or drop connections to test client timeouts.
// It advertises DSN, SMTPUTF8, 8BITMIME, CHUNKING and ENHANCEDSTATUSCODES.
// All methods are safe for concurrent use.
type SMTPServer struct {
	addr     *net.TCPAddr
	config   smtpConfig
	pki      *PKI          // nil without WithTLS
	shutdown chan struct{} // closed at cleanup; cuts stalls short
	connWG   sync.WaitGroup

	mu          sync.Mutex
	faults      smtpFaults
	messages    []ReceivedMessage
	newMessage  chan struct{} // closed and replaced whenever a message arrives
	scripts     rcptScripts
	connections int
	// open and maxOpen count connections open now and at most (D80 tests).
	open, maxOpen int
	// throttleN messages per throttleWindow, then 421 (SetThrottle).
	throttleN      int
	throttleWindow time.Duration
	throttled      int
}

// NewSMTPServer starts an SMTP server on 127.0.0.1 and stops it when the
// test ends.
func NewSMTPServer(t testing.TB, opts ...SMTPOption) *SMTPServer {
	t.Helper()
	var cfg smtpConfig
	for _, opt := range opts {
		opt(&cfg)
	}
	s := &SMTPServer{
		config:     cfg,
		shutdown:   make(chan struct{}),
		faults:     cfg.faults.clone(),
		newMessage: make(chan struct{}),
		scripts:    newRcptScripts(),
	}

	server := smtp.NewServer(smtp.BackendFunc(s.newSession))
	server.Domain = "localhost"
	server.MaxMessageBytes = cfg.maxMessageBytes
	server.EnableDSN = true
	server.EnableSMTPUTF8 = true
	// go-smtp advertises REQUIRETLS only after STARTTLS, so this matters
	// only with WithTLS.
	server.EnableREQUIRETLS = true
	server.AllowInsecureAuth = true
	// Connection errors are expected in fault tests; logging them after the
	// test ended would only add noise.
	server.ErrorLog = log.New(io.Discard, "", 0)
	if cfg.tls {
		pki, err := NewPKI("smtp")
		if err != nil {
			t.Fatalf("testutil: SMTP server: %v", err)
		}
		s.pki = pki
		server.TLSConfig = pki.ServerTLSConfig()
	}

	listenAddr := cfg.listenAddr
	if listenAddr == "" {
		listenAddr = "127.0.0.1:0"
	}
	listener, err := net.Listen("tcp", listenAddr)
	if err != nil {
		t.Fatalf("testutil: SMTP server: listen: %v", err)
	}
	s.addr = listener.Addr().(*net.TCPAddr)

	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = server.Serve(&countingListener{Listener: listener, server: s})
	}()
	t.Cleanup(func() {
		close(s.shutdown)
		_ = server.Close()
		// server.Close only knows listeners Serve already registered; when
		// the test ends before that goroutine ran, closing ours is what
		// stops it.
		_ = listener.Close()
		// Serve returns after its last Accept, so no connection is added
		// to connWG once served is closed.
		waitOrTimeout(served, shutdownWait)
		connsDone := make(chan struct{})
		go func() { s.connWG.Wait(); close(connsDone) }()
		waitOrTimeout(connsDone, shutdownWait)
	})
	return s
}

// waitOrTimeout waits for done, at most d.
func waitOrTimeout(done <-chan struct{}, d time.Duration) {
	select {
	case <-done:
	case <-time.After(d):
	}
}

// Addr returns "127.0.0.1:PORT".
func (s *SMTPServer) Addr() string { return s.addr.String() }

// Host returns "127.0.0.1".
func (s *SMTPServer) Host() string { return s.addr.IP.String() }

// Port returns the TCP port.
func (s *SMTPServer) Port() int { return s.addr.Port }

// CertPool returns a pool trusting the server's STARTTLS certificate, or nil
// when the server was created without WithTLS.
func (s *SMTPServer) CertPool() *x509.CertPool {
	if s.pki == nil {
		return nil
	}
	return s.pki.CertPool()
}

// Messages returns a copy of the accepted messages, in acceptance order.
func (s *SMTPServer) Messages() []ReceivedMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]ReceivedMessage, len(s.messages))
	for i, m := range s.messages {
		out[i] = m.clone()
	}
	return out
}

// RecipientCounts is how many accepted messages each envelope recipient
// got, without copying the messages: a test polling for thousands of them
// would otherwise copy every message's bytes, holding the lock that
// delivering connections wait on.
func (s *SMTPServer) RecipientCounts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	counts := map[string]int{}
	for _, m := range s.messages {
		for _, to := range m.To {
			counts[to]++
		}
	}
	return counts
}

// clone copies the slices too, so a test editing what it got back cannot
// change what the server recorded.
func (m ReceivedMessage) clone() ReceivedMessage {
	m.To = slices.Clone(m.To)
	m.Data = slices.Clone(m.Data)
	rcpts := make([]RcptOptions, len(m.Rcpts))
	for i, r := range m.Rcpts {
		r.Notify = slices.Clone(r.Notify)
		rcpts[i] = r
	}
	m.Rcpts = rcpts
	return m
}

// WaitForMessages waits until at least n messages were accepted and returns
// them all, or returns an error naming how many arrived when timeout passes.
func (s *SMTPServer) WaitForMessages(n int, timeout time.Duration) ([]ReceivedMessage, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		got, changed := len(s.messages), s.newMessage
		s.mu.Unlock()
		if got >= n {
			return s.Messages(), nil
		}
		select {
		case <-changed:
		case <-deadline.C:
			return s.Messages(), fmt.Errorf("testutil: SMTP server received %d message(s), want %d within %s", got, n, timeout)
		}
	}
}

// Reset forgets messages, scripts and counters and restores the faults given
// as options, so the server behaves as when it was created. Connections
// already open keep running.
func (s *SMTPServer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.messages = nil
	s.scripts = newRcptScripts()
	s.connections = 0
	s.faults = s.config.faults.clone()
}

// Script queues replies for rcpt (compared case-insensitively), replacing any
// earlier script for it. Each RCPT TO of rcpt consumes the next reply: a
// StageRcpt reply answers that RCPT; a StageData reply accepts the RCPT and
// answers the end of DATA (when several recipients of one transaction carry
// one, the first in RCPT order decides). Once the list is used up the
// recipient is accepted. It panics on a reply the server cannot produce,
// which is a bug in the test.
func (s *SMTPServer) Script(rcpt string, replies ...Reply) {
	mustValidateReplies(replies)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts.perRcpt[normalizeAddress(rcpt)] = append([]Reply(nil), replies...)
}

// ScriptAll queues replies for every recipient that has no Script of its own:
// each such recipient consumes its own copy of the list from now on, as in
// Script.
func (s *SMTPServer) ScriptAll(replies ...Reply) {
	mustValidateReplies(replies)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts.all = append([]Reply(nil), replies...)
	s.scripts.allUsed = make(map[string]int)
}

func mustValidateReplies(replies []Reply) {
	for i, r := range replies {
		if err := r.validate(); err != nil {
			panic(fmt.Sprintf("testutil: SMTP reply %d: %v", i, err))
		}
	}
}

// SetStall makes the server stay silent for d at stage on every connection
// from now on: before the greeting (StageConnect), before answering MAIL or
// RCPT, or after reading the whole body and before the final DATA reply. When
// the stall ends the server carries on normally (a message stalled at
// StageData is then accepted and recorded, like a slow server that still
// delivers). d <= 0 removes the stall of that stage.
func (s *SMTPServer) SetStall(stage Stage, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d <= 0 {
		delete(s.faults.stalls, stage)
		return
	}
	if s.faults.stalls == nil {
		s.faults.stalls = make(map[Stage]time.Duration)
	}
	s.faults.stalls[stage] = d
}

// SetDropDuringData turns on or off closing the connection after reading the
// first bytes of DATA, without a reply and without accepting anything.
func (s *SMTPServer) SetDropDuringData(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.dropDuringData = on
}

// Connections returns how many TCP connections were accepted.
func (s *SMTPServer) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connections
}

// Attempts returns how many RCPT TO commands named rcpt (case-insensitive),
// whatever their outcome: one per delivery attempt that reached it.
func (s *SMTPServer) Attempts(rcpt string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scripts.attempts[normalizeAddress(rcpt)]
}

// stall waits the configured stall of stage, cut short when the server shuts
// down so cleanup never waits for a long stall.
func (s *SMTPServer) stall(stage Stage) {
	s.mu.Lock()
	d := s.faults.stalls[stage]
	s.mu.Unlock()
	if d <= 0 {
		return
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-s.shutdown:
	}
}

// shuttingDown reports whether cleanup started.
func (s *SMTPServer) shuttingDown() bool {
	select {
	case <-s.shutdown:
		return true
	default:
		return false
	}
}

func (s *SMTPServer) dropDuringData() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.faults.dropDuringData
}

// nextReply counts an attempt for rcpt and returns its scripted reply, if any.
func (s *SMTPServer) nextReply(rcpt string) (Reply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scripts.next(rcpt)
}

// record stores an accepted message and wakes WaitForMessages.
func (s *SMTPServer) record(m ReceivedMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.messages = append(s.messages, m)
	close(s.newMessage)
	s.newMessage = make(chan struct{})
}

// countingListener counts connections and tracks them so cleanup can wait
// for their goroutines.
type countingListener struct {
	net.Listener
	server *SMTPServer
}

// Accept wraps each connection so it can stall its greeting and report
// its close.
func (l *countingListener) Accept() (net.Conn, error) {
	conn, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	s := l.server
	s.mu.Lock()
	s.connections++
	s.open++
	s.maxOpen = max(s.maxOpen, s.open)
	greetingStall := s.faults.stalls[StageConnect]
	s.mu.Unlock()
	s.connWG.Add(1)
	return &trackedConn{Conn: conn, server: s, greetingStall: greetingStall}, nil
}

// trackedConn delays its first write (the greeting) when asked to and
// signals connWG once closed.
type trackedConn struct {
	net.Conn
	server        *SMTPServer
	greetingStall time.Duration
	wroteOnce     sync.Once
	closeOnce     sync.Once
}

// Write stalls before the first write only; go-smtp writes the greeting
// first, from the connection's own goroutine, so only that client waits.
func (c *trackedConn) Write(p []byte) (int, error) {
	c.wroteOnce.Do(func() {
		if c.greetingStall <= 0 {
			return
		}
		timer := time.NewTimer(c.greetingStall)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-c.server.shutdown:
		}
	})
	return c.Conn.Write(p)
}

// Close closes the socket once and marks the connection finished.
func (c *trackedConn) Close() error {
	err := net.ErrClosed
	c.closeOnce.Do(func() {
		// Counted closed before the client can see it closed, so a client
		// that waits for the close never finds two of its connections open.
		c.server.mu.Lock()
		c.server.open--
		c.server.mu.Unlock()
		err = c.Conn.Close()
		c.server.connWG.Done()
	})
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("close smtp test connection: %w", err)
	}
	return nil
}
