package inbound

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// Domains the test handler serves, like the bounce host and the return-path
// domain of a registered domain (D55).
const (
	bounceHost   = "bounces.carteiro.localhost"
	customerHost = "bounces.example.com"
)

// delivery is one Deliver call as the handler saw it.
type delivery struct {
	From string
	To   []string
	Raw  []byte
}

// testHandler serves a fixed set of domains and records deliveries. A
// deliver func, when set, decides Deliver's result.
type testHandler struct {
	domains map[string]bool
	deliver func(ctx context.Context) error

	mu         sync.Mutex
	asked      []string
	deliveries []delivery
}

func newTestHandler(domains ...string) *testHandler {
	if len(domains) == 0 {
		domains = []string{bounceHost, customerHost}
	}
	h := &testHandler{domains: make(map[string]bool)}
	for _, d := range domains {
		h.domains[d] = true
	}
	return h
}

func (h *testHandler) AcceptsDomain(_ context.Context, domain string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asked = append(h.asked, domain)
	return h.domains[domain]
}

func (h *testHandler) Deliver(ctx context.Context, from string, to []string, raw []byte) error {
	if h.deliver != nil {
		if err := h.deliver(ctx); err != nil {
			return err
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.deliveries = append(h.deliveries, delivery{From: from, To: to, Raw: raw})
	return nil
}

func (h *testHandler) Deliveries() []delivery {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.deliveries)
}

func (h *testHandler) Asked() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.asked)
}

// startServer listens on a free loopback port and closes the server when
// the test ends.
func startServer(t *testing.T, opts Options, h Handler) *Server {
	t.Helper()
	opts.Addr = "127.0.0.1:0"
	if opts.Hostname == "" {
		opts.Hostname = "mx.test"
	}
	srv, err := Listen(opts, h)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// dial opens an SMTP client to srv, closed when the test ends.
func dial(t *testing.T, srv *Server) *smtp.Client {
	t.Helper()
	c, err := smtp.Dial(srv.Addr())
	if err != nil {
		t.Fatalf("dial %s: %v", srv.Addr(), err)
	}
	c.CommandTimeout = 5 * time.Second
	c.SubmissionTimeout = 5 * time.Second
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// sendData runs DATA with raw and returns the final reply's error.
func sendData(t *testing.T, c *smtp.Client, raw []byte) error {
	t.Helper()
	w, err := c.Data()
	if err != nil {
		t.Fatalf("DATA: %v", err)
	}
	if _, err := w.Write(raw); err != nil {
		t.Fatalf("write message: %v", err)
	}
	return w.Close()
}

// wantReply fails unless err is an SMTP reply with this code and enhanced
// code.
func wantReply(t *testing.T, what string, err error, code int, enhanced smtp.EnhancedCode) {
	t.Helper()
	var smtpErr *smtp.SMTPError
	if !errors.As(err, &smtpErr) {
		t.Fatalf("%s: got %v, want SMTP reply %d %v", what, err, code, enhanced)
	}
	if smtpErr.Code != code || smtpErr.EnhancedCode != enhanced {
		t.Fatalf("%s: got %d %v %q, want %d %v", what, smtpErr.Code, smtpErr.EnhancedCode,
			smtpErr.Message, code, enhanced)
	}
}

// logBuffer collects log output from server goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(b, nil))
}

// dialFrom connects from a chosen loopback source address, to look like a
// different client; it skips the test where the system refuses that
// source.
func dialFrom(t *testing.T, srv *Server, source string) *smtp.Client {
	t.Helper()
	dialer := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(source)}, Timeout: 5 * time.Second}
	conn, err := dialer.Dial("tcp", srv.Addr())
	if err != nil {
		t.Skipf("cannot connect from %s on this system: %v", source, err)
	}
	c := smtp.NewClient(conn)
	c.CommandTimeout = 5 * time.Second
	c.SubmissionTimeout = 5 * time.Second
	t.Cleanup(func() { _ = c.Close() })
	return c
}
