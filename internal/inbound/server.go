package inbound

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"sync"

	"github.com/emersion/go-smtp"
)

// Server is a running inbound SMTP listener. Its methods are safe for
// concurrent use.
type Server struct {
	opts     Options
	handler  Handler
	smtp     *smtp.Server
	listener net.Listener
	limiter  *clientLimiter
	log      *slog.Logger

	// ctx is given to every handler call and cancelled by Close, so a
	// handler stuck on a slow store does not hold the shutdown.
	ctx    context.Context
	cancel context.CancelFunc
	calls  callGate
	served chan struct{} // closed when the accept loop returns

	closeOnce sync.Once
	closeErr  error
}

// Listen binds opts.Addr now, so a bad address or a port in use is
// reported to the caller, and serves in the background until Close.
func Listen(opts Options, h Handler) (*Server, error) {
	if h == nil {
		return nil, errors.New("inbound: listen: nil handler")
	}
	if opts.Addr == "" {
		return nil, errors.New("inbound: listen: empty address")
	}
	opts = opts.withDefaults()
	listener, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("inbound: listen on %s: %w", opts.Addr, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		opts:     opts,
		handler:  h,
		listener: listener,
		limiter:  newClientLimiter(opts.RatePerIP, opts.BurstPerIP, maxTrackedClients),
		log:      opts.Logger.With("component", "inbound"),
		ctx:      ctx,
		cancel:   cancel,
		served:   make(chan struct{}),
	}
	s.smtp = s.newSMTPServer()
	s.listener = &limitedListener{Listener: listener, limits: newConnLimiter(opts.ConnsPerIP), refused: func(addr netip.Addr) {
		s.log.Info("inbound SMTP refused", "stage", "CONNECT", "code", 421, "reason", "too many connections", "client", addr.String())
	}}
	go s.serve()
	return s, nil
}

// newSMTPServer configures go-smtp: no TLS and no AUTH (see the package
// comment), SMTPUTF8 on (go-smtp always offers 8BITMIME), and the size and
// timeout limits from the options.
func (s *Server) newSMTPServer() *smtp.Server {
	srv := smtp.NewServer(smtp.BackendFunc(s.newSession))
	srv.Domain = s.opts.Hostname
	srv.EnableSMTPUTF8 = true
	// One byte of slack: go-smtp's DATA reader fails a message of exactly
	// its limit (it stops before reading the final "."), so the exact cap
	// is enforced in session.Data instead, and SIZE= in session.Mail.
	srv.MaxMessageBytes = s.opts.MaxMessageBytes + 1
	srv.ReadTimeout = s.opts.ReadTimeout
	srv.WriteTimeout = s.opts.WriteTimeout
	srv.ErrorLog = errorLog{log: s.log}
	srv.TLSConfig = s.opts.TLS // go-smtp offers STARTTLS when set
	return srv
}

// serve runs the accept loop until Close.
func (s *Server) serve() {
	defer close(s.served)
	s.log.Info("inbound SMTP listening", "addr", s.Addr())
	if err := s.smtp.Serve(s.listener); err != nil && !errors.Is(err, net.ErrClosed) {
		s.log.Error("inbound SMTP stopped serving", "error", err)
	}
}

// Addr returns the address the server listens on, with the port chosen
// when opts.Addr asked for port 0.
func (s *Server) Addr() string { return s.listener.Addr().String() }

// Close stops accepting, cuts every open connection (a client in the middle
// of a transaction got no 250, so it will retry), cancels the context of
// handler calls in flight and waits for them and for the accept loop. No
// handler call starts after Close returns. Later calls return the first
// call's result.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		var errs []error
		if err := s.smtp.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			errs = append(errs, err)
		}
		// go-smtp only closes listeners its Serve already registered;
		// when Close follows Listen closely that goroutine may not have
		// run yet, and closing the listener here is what stops it.
		if err := s.listener.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			errs = append(errs, err)
		}
		s.cancel()
		s.calls.closeAndWait()
		<-s.served
		if err := errors.Join(errs...); err != nil {
			s.closeErr = fmt.Errorf("inbound: close: %w", err)
		}
	})
	return s.closeErr
}

// callGate counts handler calls in flight and, once closed, refuses new
// ones, so Close can wait for the last call without racing a new one.
type callGate struct {
	mu       sync.Mutex
	closed   bool
	inFlight sync.WaitGroup
}

// enter reports whether a call may start; a true answer must be paired
// with leave.
func (g *callGate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.inFlight.Add(1)
	return true
}

func (g *callGate) leave() { g.inFlight.Done() }

// closeAndWait refuses new calls and waits for the ones in flight.
func (g *callGate) closeAndWait() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	g.inFlight.Wait()
}
