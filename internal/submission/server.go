package submission

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"

	"github.com/emersion/go-smtp"

	"github.com/carteiro/carteiro/internal/app"
)

// Sender is what the listener needs of the app: the same two use cases
// the HTTP API calls for POST /emails.
type Sender interface {
	Authenticate(ctx context.Context, key string) (*app.Principal, error)
	SendEmail(ctx context.Context, p *app.Principal, r *app.SendRequest) (*app.SendResult, error)
}

// Server is the running submission listeners.
type Server struct {
	opts   Options
	sender Sender
	log    *slog.Logger

	// ctx is given to every app call and cancelled by Close.
	ctx    context.Context
	cancel context.CancelFunc

	listeners  []*listener
	authBlocks *authBlocks
	closeOnce  sync.Once
	closeErr   error
}

type listener struct {
	net    net.Listener
	smtp   *smtp.Server
	served chan struct{}
}

// Listen binds the configured addresses now, so a bad address or a port
// in use is reported to the caller, and serves in the background.
func Listen(opts Options, sender Sender) (*Server, error) {
	if opts.Addr == "" && opts.ImplicitTLSAddr == "" {
		return nil, errors.New("submission: listen: no address")
	}
	if opts.TLS == nil || opts.Limiter == nil || sender == nil {
		return nil, errors.New("submission: listen: TLS, Limiter and sender are required")
	}
	opts = opts.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{opts: opts, sender: sender, log: opts.Logger.With("component", "submission"), ctx: ctx, cancel: cancel,
		authBlocks: newAuthBlocks()}
	for _, a := range []struct {
		addr     string
		implicit bool
	}{{opts.Addr, false}, {opts.ImplicitTLSAddr, true}} {
		if a.addr == "" {
			s.listeners = append(s.listeners, nil)
			continue
		}
		ln, err := net.Listen("tcp", a.addr)
		if err != nil {
			_ = s.Close()
			return nil, fmt.Errorf("submission: listen on %s: %w", a.addr, err)
		}
		if a.implicit {
			ln = tls.NewListener(ln, opts.TLS)
		}
		l := &listener{net: ln, smtp: s.newSMTPServer(a.implicit), served: make(chan struct{})}
		s.listeners = append(s.listeners, l)
		go s.serve(l, a.implicit)
	}
	return s, nil
}

// newSMTPServer configures go-smtp: STARTTLS with the certificate,
// SMTPUTF8 (8BITMIME, PIPELINING and ENHANCEDSTATUSCODES are always on),
// SIZE. AllowInsecureAuth lets loopback clients authenticate without TLS;
// the session refuses everyone else (AuthMechanisms, Auth).
func (s *Server) newSMTPServer(implicitTLS bool) *smtp.Server {
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		// go-smtp starts a second session at the EHLO after STARTTLS: on
		// the STARTTLS listener a TLS connection is that one, not a new
		// connection, and is not counted again.
		_, isTLS := c.TLSConnectionState()
		return s.newSession(c, implicitTLS || !isTLS)
	}))
	srv.Domain = s.opts.Hostname
	srv.TLSConfig = s.opts.TLS
	srv.EnableSMTPUTF8 = true
	srv.AllowInsecureAuth = true
	// One byte of slack: go-smtp's reader fails a message of exactly its
	// limit, so the exact cap is enforced in Data.
	srv.MaxMessageBytes = s.opts.MaxMessageBytes + 1
	srv.ReadTimeout, srv.WriteTimeout = s.opts.Timeout, s.opts.Timeout
	srv.ErrorLog = errorLog{log: s.log}
	return srv
}

func (s *Server) serve(l *listener, implicit bool) {
	defer close(l.served)
	s.log.Info("SMTP submission listening", "addr", l.net.Addr().String(), "implicit_tls", implicit)
	if err := l.smtp.Serve(l.net); err != nil && !errors.Is(err, net.ErrClosed) {
		s.log.Error("SMTP submission stopped serving", "error", err)
	}
}

// Addr is the STARTTLS listener's address ("" when off), with the port
// chosen when the option asked for port 0.
func (s *Server) Addr() string { return s.addr(0) }

// ImplicitTLSAddr is the implicit TLS listener's address, "" when off.
func (s *Server) ImplicitTLSAddr() string { return s.addr(1) }

func (s *Server) addr(i int) string {
	if i >= len(s.listeners) || s.listeners[i] == nil {
		return ""
	}
	return s.listeners[i].net.Addr().String()
}

// Close stops both listeners and cuts open connections (a client without
// its 250 retries), and cancels app calls in flight.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		var errs []error
		for _, l := range s.listeners {
			if l == nil {
				continue
			}
			if err := l.smtp.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
				errs = append(errs, err)
			}
			if err := l.net.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
				errs = append(errs, err)
			}
		}
		s.cancel()
		for _, l := range s.listeners {
			if l != nil {
				<-l.served
			}
		}
		if err := errors.Join(errs...); err != nil {
			s.closeErr = fmt.Errorf("submission: close: %w", err)
		}
	})
	return s.closeErr
}

// errorLog adapts go-smtp's error log: broken connections are routine.
type errorLog struct{ log *slog.Logger }

func (e errorLog) Printf(format string, v ...any) {
	e.log.Debug("SMTP submission connection error", "detail", fmt.Sprintf(format, v...))
}

func (e errorLog) Println(v ...any) {
	e.log.Debug("SMTP submission connection error", "detail", fmt.Sprint(v...))
}
