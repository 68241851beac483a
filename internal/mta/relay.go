package mta

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"
)

// Relay defaults.
const (
	DefaultPoolSize              = 8
	DefaultIdleTimeout           = 30 * time.Second
	DefaultMaxMessagesPerSession = 100
)

// RelayOptions configure NewRelay. Zero values mean the defaults.
type RelayOptions struct {
	// TLSConfig is used for STARTTLS and implicit TLS (RootCAs for tests;
	// ServerName defaults to the URL's host). Nil means the system roots.
	TLSConfig *tls.Config
	// HeloName is the EHLO name; default the machine's host name.
	HeloName string
	// PoolSize bounds the connections open at once (default 8); Deliver
	// calls beyond it wait for a free one.
	PoolSize int
	// DialTimeout, CommandTimeout and DataTimeout bound connecting, each
	// command's reply, and the final reply after the message (defaults 30 s,
	// 5 min, 10 min).
	DialTimeout, CommandTimeout, DataTimeout time.Duration
	// IdleTimeout closes pooled connections unused for that long (default
	// 30 s), before the relay's own idle timer drops them.
	IdleTimeout time.Duration
	// MaxMessagesPerSession retires a connection after that many messages
	// (default 100), as relays commonly limit them.
	MaxMessagesPerSession int
	// RequestDSN asks for delivery status notifications (MAIL RET=HDRS
	// ENVID=..., RCPT NOTIFY=SUCCESS,FAILURE,DELAY) when the relay
	// advertises DSN, so "delivered" can be confirmed (D25).
	RequestDSN bool
	// Logger receives the line logged when the relay asks to slow down;
	// nil discards it.
	Logger *slog.Logger
}

// Relay delivers everything through one smarthost (D3), over a pool of
// reused connections. It is safe for concurrent use; Close releases it.
type Relay struct {
	target    relayTarget
	tlsConfig *tls.Config
	helo      string
	limits    timeouts
	opts      RelayOptions
	dialer    net.Dialer
	pool      *pool
}

// NewRelay parses rawURL (D56: smtp://user:pass@host:587 with STARTTLS
// required, smtps:// with implicit TLS, smtp+plain:// without TLS) and
// returns a relay transport. No connection is made until the first
// delivery.
func NewRelay(rawURL string, opts RelayOptions) (*Relay, error) {
	target, err := parseRelayURL(rawURL)
	if err != nil {
		return nil, err
	}
	helo, err := heloName(opts.HeloName)
	if err != nil {
		return nil, err
	}
	if opts.PoolSize <= 0 {
		opts.PoolSize = DefaultPoolSize
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.MaxMessagesPerSession <= 0 {
		opts.MaxMessagesPerSession = DefaultMaxMessagesPerSession
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if opts.TLSConfig != nil {
		tlsConfig = opts.TLSConfig.Clone()
	}
	if tlsConfig.ServerName == "" {
		tlsConfig.ServerName = target.host
	}
	r := &Relay{
		target:    target,
		tlsConfig: tlsConfig,
		helo:      helo,
		limits:    timeouts{dial: opts.DialTimeout, command: opts.CommandTimeout, data: opts.DataTimeout}.withDefaults(),
		opts:      opts,
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	r.pool = newPool(opts.PoolSize, opts.IdleTimeout, opts.Logger)
	return r, nil
}

// Close closes idle connections and stops the pool; connections in use are
// closed when their delivery ends. Deliver after Close fails temporarily.
func (r *Relay) Close() error {
	r.pool.close()
	return nil
}

// Deliver sends data to every recipient through the relay: one
// transaction for all of them, or one per return path (Envelope.ReturnPaths,
// D65), one after the other on the same connection. A failure to reach or
// set up the relay (connection, TLS, authentication) is temporary for every
// recipient not yet handed over, whatever the reply code: it is the
// operator's to fix, never the recipient's fault.
func (r *Relay) Deliver(ctx context.Context, env Envelope, data []byte) []Result {
	if results := precheck(env, data); results != nil {
		return results
	}
	if len(env.Recipients) == 0 {
		return []Result{}
	}
	results := make([]Result, len(env.Recipients))
	txs := env.transactions()
	if err := r.pool.acquire(ctx); err != nil {
		fill(results, txs, failure(ClassTemporary, enhancedNoAnswer, r.target.host, err.Error()))
		return results
	}
	defer r.pool.releaseSlot()

	var s *session
	for k := 0; k < len(txs); {
		tx := txs[k]
		if s != nil {
			if err := s.ready(ctx); err != nil {
				s.end()
				s = nil
			}
		}
		if s == nil {
			var err error
			if s, err = r.session(ctx); err != nil {
				fail := setupFailure(r.target.host, err)
				if asksToSlowDown(fail) {
					r.pool.slowDown(fail)
				}
				fill(results, txs[k:], fail)
				return results
			}
		}
		got, healthy := s.transact(ctx, tx.env, data, txOptions{dsn: r.opts.RequestDSN})
		if got == nil {
			// Its RSET failed: a pooled connection the relay had closed
			// while idle, which took nothing; another connection takes
			// this transaction, and nobody is deferred. A connection's
			// first transaction here never starts with RSET unless it
			// came from the pool, so this ends.
			s.end()
			s = nil
			continue
		}
		tx.place(results, got)
		k++
		for _, res := range got {
			if asksToSlowDown(res) {
				r.pool.slowDown(res) // D80: the relay is one destination
				break
			}
		}
		switch {
		case !healthy:
			// After a 421, the relay's close is awaited (session.end)
			// before this slot frees, so the relay never sees one
			// connection more than the pool's size.
			s.end()
			s = nil
		case s.messages >= r.opts.MaxMessagesPerSession:
			s.quit()
			s = nil
		}
	}
	if s != nil {
		r.pool.putIdle(s)
	}
	return results
}

// session returns an idle pooled connection, whose first transaction
// proves it alive with an RSET pipelined with MAIL when the relay offers
// PIPELINING (as Direct does, D80: no round trip of its own), or a new one.
func (r *Relay) session(ctx context.Context) (*session, error) {
	if s := r.pool.takeIdle(); s != nil {
		s.probe = true
		return s, nil
	}
	return r.open(ctx)
}

// open connects and prepares a session: TLS as the URL demands, EHLO,
// AUTH PLAIN when the URL has credentials.
func (r *Relay) open(ctx context.Context) (*session, error) {
	var implicit *tls.Config
	if r.target.mode == tlsImplicit {
		implicit = r.tlsConfig
	}
	s, err := dialSession(ctx, &r.dialer, r.target.host, r.target.addr(), implicit, r.limits)
	if err != nil {
		return nil, err
	}
	stop := s.guard(ctx)
	err = r.prepare(ctx, s)
	if !stop() && err == nil {
		err = s.describe(ctx, net.ErrClosed)
	}
	if err != nil {
		s.closeAfter(err)
		return nil, err
	}
	return s, nil
}

// closeAfter ends a session whose setup failed: with QUIT when the server
// is still talking to us (it lacks STARTTLS, refused a command, or said
// 421 and is closing, whose close QUIT then waits for: session.end), which
// a relay's logs then show as a polite goodbye rather than a dropped
// connection; without it after a broken connection or a failed handshake.
func (s *session) closeAfter(err error) {
	var re *replyError
	if errors.Is(err, errNoSTARTTLS) || errors.As(err, &re) {
		s.end()
		return
	}
	s.close()
}

// errNoSTARTTLS is returned when smtp:// meets a relay without STARTTLS:
// credentials and mail must not go in clear text (D3).
var errNoSTARTTLS = errors.New("relay does not offer STARTTLS, which smtp:// requires (use smtp+plain:// for a local relay without TLS)")

// prepare runs EHLO, STARTTLS and AUTH on a fresh session.
func (r *Relay) prepare(ctx context.Context, s *session) error {
	if err := s.hello(ctx, r.helo); err != nil {
		return err
	}
	if r.target.mode == tlsStartTLS {
		if !s.has("STARTTLS") {
			return errNoSTARTTLS
		}
		if err := s.startTLS(ctx, r.tlsConfig); err != nil {
			return err
		}
		if err := s.hello(ctx, r.helo); err != nil {
			return err
		}
	}
	if r.target.auth {
		if err := s.authPlain(ctx, r.target.user, r.target.pass); err != nil {
			return fmt.Errorf("authenticating as %q: %w", r.target.user, err)
		}
	}
	return nil
}

// setupFailure describes a session that could not be set up. It is always
// temporary (see Relay.Deliver and Direct); the reply's code is kept for
// the record.
func setupFailure(host string, err error) Result {
	res := Result{Class: ClassTemporary, Host: host, Message: err.Error(), Enhanced: enhancedBadConnection}
	var re *replyError
	var ce *connectError
	switch {
	case errors.As(err, &re):
		res.Code = re.reply.code
		res.Enhanced = re.reply.enhanced
		if res.Enhanced == "" {
			res.Enhanced = derivedEnhanced(re.reply.code)
		}
	case errors.As(err, &ce):
		res.Enhanced = enhancedNoAnswer
	}
	return res
}
