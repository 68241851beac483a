package mta

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/carteiro/carteiro/internal/dnscheck"
)

// Direct defaults.
const (
	DefaultDirectPort         = 25
	DefaultMaxParallelDomains = 8
)

// maxConnectAttempts bounds the addresses tried for one domain, so a domain
// with many unreachable exchangers cannot hold a delivery for long.
const maxConnectAttempts = 10

// DirectOptions configure NewDirect. Zero values mean the defaults.
type DirectOptions struct {
	// Port is the port of every exchanger (default 25; D56
	// CARTEIRO_DIRECT_PORT, which tests point at an in-process server).
	Port int
	// HeloName is the EHLO name; default the machine's host name.
	HeloName string
	// TLSConfig is used for opportunistic STARTTLS; ServerName defaults to
	// the exchanger's name. Nil means encryption without certificate
	// verification (RFC 7435 opportunistic security: an MX certificate can
	// only be authenticated with MTA-STS or DANE, and unauthenticated
	// encryption still beats clear text). With either, a failed handshake
	// is retried once on a new connection without TLS.
	TLSConfig *tls.Config
	// DialTimeout, CommandTimeout and DataTimeout bound connecting, each
	// command's reply, and the final reply after the message (defaults 30 s,
	// 5 min, 10 min).
	DialTimeout, CommandTimeout, DataTimeout time.Duration
	// MaxParallelDomains bounds the domains of one email delivered at once
	// (default 8).
	MaxParallelDomains int
	// Connections bounds the connections open at once to one destination
	// (D80 CARTEIRO_DESTINATION_CONNECTIONS, default 10); a delivery
	// finding them all busy waits for one.
	Connections int
	// TransactionsPerConnection retires a connection after that many
	// transactions (default 100).
	TransactionsPerConnection int
	// MessagesPerMinute bounds the transactions started per minute to one
	// destination; 0 is no bound.
	MessagesPerMinute int
	// Shaping overrides the limits above per destination key
	// (CARTEIRO_SHAPING_FILE, ParseShaping).
	Shaping map[string]Shaping
	// IdleTimeout closes a destination's connection unused for that long
	// (default 5 s).
	IdleTimeout time.Duration
	// HoldDuration is how long a destination is held after 5 connection
	// failures in a row (default 5 min).
	HoldDuration time.Duration
	// Logger receives the line logged when a destination slows down or is
	// held; nil discards it.
	Logger *slog.Logger
	// Now is the clock of holds and of the concurrency's recovery: the
	// service's clock, which tests move (default time.Now). Idle
	// connections are timed in real time, as the servers time them.
	Now func() time.Time
}

// Direct delivers to each recipient domain's mail exchangers (D3), shaped
// per destination (D80): domains are grouped by the registered domain of
// their most preferred exchanger, and each destination has a pool of
// connections reused across emails and organizations, bounded and fed
// back by the replies (destPool). One email's domains are delivered in
// parallel; a domain's transactions (one, or one per return path, D65) go
// one after the other on a pooled connection.
// It is safe for concurrent use; Close ends its connections.
type Direct struct {
	dns      resolver
	routes   *routeCache
	port     string
	helo     string
	heloErr  error
	tls      *tls.Config
	limits   timeouts
	parallel int
	dialer   net.Dialer
	opts     DirectOptions
	shape    Shaping // the defaults of every destination

	mu    sync.Mutex
	pools map[string]*destPool // by destination key

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// NewDirect returns a direct-to-MX transport resolving through resolver.
// It starts a janitor closing idle connections; Close stops it.
func NewDirect(resolver *dnscheck.Resolver, opts DirectOptions) *Direct {
	if opts.Port <= 0 {
		opts.Port = DefaultDirectPort
	}
	if opts.MaxParallelDomains <= 0 {
		opts.MaxParallelDomains = DefaultMaxParallelDomains
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultDestinationIdleTimeout
	}
	if opts.HoldDuration <= 0 {
		opts.HoldDuration = DefaultHoldDuration
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	helo, heloErr := heloName(opts.HeloName)
	d := &Direct{
		dns:      resolver,
		routes:   newRouteCache(resolver, opts.Now),
		port:     strconv.Itoa(opts.Port),
		helo:     helo,
		heloErr:  heloErr,
		tls:      opts.TLSConfig,
		limits:   timeouts{dial: opts.DialTimeout, command: opts.CommandTimeout, data: opts.DataTimeout}.withDefaults(),
		parallel: opts.MaxParallelDomains,
		opts:     opts,
		shape: Shaping{Connections: opts.Connections, MessagesPerMinute: opts.MessagesPerMinute,
			TransactionsPerConnection: opts.TransactionsPerConnection}.or(Shaping{
			Connections: DefaultDestinationConnections, TransactionsPerConnection: DefaultTransactionsPerConnection}),
		pools: make(map[string]*destPool),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	go d.janitor()
	return d
}

// Close stops the janitor and closes idle connections; connections in use
// close when their delivery ends. It is safe to call more than once.
func (d *Direct) Close() error {
	d.closeOnce.Do(func() {
		close(d.stop)
		<-d.done
		d.mu.Lock()
		pools := slices.Collect(maps.Values(d.pools))
		d.mu.Unlock()
		for _, p := range pools {
			p.close()
		}
	})
	return nil
}

// janitor ticks every destination: idle connections past IdleTimeout
// close, recovered concurrency reaches waiting deliveries, and quiet
// destinations are forgotten.
func (d *Direct) janitor() {
	defer close(d.done)
	ticker := time.NewTicker(min(max(d.opts.IdleTimeout/2, 10*time.Millisecond), time.Second))
	defer ticker.Stop()
	for {
		select {
		case <-d.stop:
			return
		case <-ticker.C:
			d.mu.Lock()
			pools := maps.Clone(d.pools)
			d.mu.Unlock()
			for key, p := range pools {
				if p.tick() {
					d.mu.Lock()
					delete(d.pools, key)
					d.mu.Unlock()
				}
			}
		}
	}
}

// pool returns the destination's pool, made on first use with the shaping
// file's limits for it, if any.
func (d *Direct) pool(key string) *destPool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if p, ok := d.pools[key]; ok {
		return p
	}
	p := newDestPool(key, d.opts.Shaping[key].or(d.shape), d.opts.HoldDuration, d.opts.IdleTimeout, d.opts.Now, d.opts.Logger)
	d.pools[key] = p
	return p
}

// Stats reports every destination's state, by destination key, for
// /metrics (D80).
func (d *Direct) Stats() []DestinationStats {
	d.mu.Lock()
	pools := slices.Collect(maps.Values(d.pools))
	d.mu.Unlock()
	out := make([]DestinationStats, len(pools))
	for i, p := range pools {
		out[i] = p.stats()
	}
	slices.SortFunc(out, func(a, b DestinationStats) int { return strings.Compare(a.Destination, b.Destination) })
	return out
}

// Deliver groups the recipients by domain and delivers each group to its
// domain's exchangers.
func (d *Direct) Deliver(ctx context.Context, env Envelope, data []byte) []Result {
	if results := precheck(env, data); results != nil {
		return results
	}
	if d.heloErr != nil {
		return fillAll(env, failure(ClassTemporary, enhancedNoAnswer, "", d.heloErr.Error()))
	}
	results := make([]Result, len(env.Recipients))
	groups := make(map[string][]int)
	var order []string
	for i, rcpt := range env.Recipients {
		if r, ok := checkRecipient(rcpt); !ok {
			results[i] = r
			continue
		}
		domain := domainOf(rcpt)
		if _, seen := groups[domain]; !seen {
			order = append(order, domain)
		}
		groups[domain] = append(groups[domain], i)
	}

	sem := make(chan struct{}, d.parallel)
	var wg sync.WaitGroup
	for _, domain := range order {
		indexes := groups[domain]
		sub := Envelope{From: env.From, EnvelopeID: env.EnvelopeID, Background: env.Background, Recipients: make([]string, len(indexes))}
		if len(env.ReturnPaths) > 0 {
			sub.ReturnPaths = make([]string, len(indexes))
		}
		for j, i := range indexes {
			sub.Recipients[j] = env.Recipients[i]
			if len(sub.ReturnPaths) > 0 {
				sub.ReturnPaths[j] = env.From
				if i < len(env.ReturnPaths) {
					sub.ReturnPaths[j] = env.ReturnPaths[i]
				}
			}
		}
		deliver := func() {
			var got []Result
			select {
			case sem <- struct{}{}:
				got = d.deliverDomain(ctx, domain, sub, data)
				<-sem
			case <-ctx.Done():
				got = fillAll(sub, failure(ClassTemporary, enhancedNoAnswer, "", "delivery interrupted: "+ctx.Err().Error()))
			}
			for j, i := range indexes {
				results[i] = got[j]
			}
		}
		if len(order) == 1 {
			// Most emails go to one domain: deliver on the caller's
			// goroutine, whose stack has already grown, rather than on a
			// new one that grows (and copies) its stack through the SMTP
			// and TLS code for every email.
			deliver()
			break
		}
		wg.Go(deliver)
	}
	wg.Wait()
	return results
}

// deliverDomain delivers env's transactions (one, or one per return path,
// D65) to the domain's exchangers over connections of its destination's
// pool; a connection lost on the way is replaced for the rest.
func (d *Direct) deliverDomain(ctx context.Context, domain string, env Envelope, data []byte) []Result {
	results := make([]Result, len(env.Recipients))
	txs := env.transactions()
	rt, key, fail := d.routes.lookup(ctx, domain)
	if fail != nil {
		fill(results, txs, *fail)
		return results
	}
	p := d.pool(key)
	defer p.count(results)
	for len(txs) > 0 {
		s, err := p.acquire(ctx, env.Background, rt.hosts)
		if err != nil {
			fill(results, txs, waitFailure(ctx, err))
			break
		}
		if s != nil {
			// The server may have closed it while idle: the first
			// transaction proves it with RSET (D80), pipelined with MAIL.
			s.probe = true
		}
		if s == nil {
			if s, fail = d.connectRoute(ctx, domain, rt); fail != nil {
				d.failedToConnect(ctx, p, *fail)
				fill(results, txs, *fail)
				break
			}
			p.connected()
		}
		// Each new connection completes at least one transaction (a broken
		// one leaves its recipients temporary); a pooled one found closed
		// completes none but is dropped, so this ends.
		n, reusable := d.transactSome(ctx, p, s, txs, data, results)
		p.release(s, reusable)
		txs = txs[n:]
	}
	return results
}

// waitFailure is the outcome of a delivery that got no connection: the
// destination is held (retry when the hold ends), or ctx ended.
func waitFailure(ctx context.Context, err error) Result {
	if held, ok := errors.AsType[*heldError](err); ok {
		r := failure(ClassTemporary, enhancedNoAnswer, "", err.Error())
		r.RetryAt = held.until
		return r
	}
	return failure(ClassTemporary, enhancedNoAnswer, "", "delivery interrupted: "+context.Cause(ctx).Error())
}

// failedToConnect reports a failed connection to the pool: a temporary
// failure counts towards the hold, a permanent one (no such domain) or an
// interrupted delivery does not; a 421 greeting also slows down.
func (d *Direct) failedToConnect(ctx context.Context, p *destPool, fail Result) {
	if fail.Class != ClassTemporary || ctx.Err() != nil {
		p.abandon()
		return
	}
	p.connectFailed()
	if asksToSlowDown(fail) {
		p.slowDown(fail)
	}
}

// transactSome runs txs on s, after the destination's rate allows each,
// until they are done, s carried its share of transactions, or s breaks.
// It returns how many transactions it decided and whether s may be reused.
// A slow-down reply (asksToSlowDown) halves the destination's concurrency.
func (d *Direct) transactSome(ctx context.Context, p *destPool, s *session, txs []txEnvelope, data []byte, results []Result) (int, bool) {
	for k, tx := range txs {
		if k > 0 && s.messages >= p.shape.TransactionsPerConnection {
			return k, true
		}
		if err := p.wait(ctx); err != nil {
			fill(results, txs[k:], failure(ClassTemporary, enhancedNoAnswer, s.host, err.Error()))
			return len(txs), true
		}
		if err := s.ready(ctx); err != nil {
			return k, false
		}
		got, healthy := s.transact(ctx, tx.env, data, txOptions{})
		if got == nil {
			// A pooled connection the server had closed: nothing was
			// sent on it, so no recipient is deferred; another connection
			// takes this transaction and the rest.
			return k, false
		}
		tx.place(results, got)
		for _, r := range got {
			if asksToSlowDown(r) {
				p.slowDown(r)
				break
			}
		}
		if !healthy {
			return k + 1, false
		}
	}
	return len(txs), true
}

// connectRoute tries the domain's exchangers in order until one answers
// and takes EHLO. Unreachable hosts, 4xx/5xx greetings and failed EHLOs
// move on to the next; the failure returned is the last one seen.
func (d *Direct) connectRoute(ctx context.Context, domain string, rt route) (*session, *Result) {
	last := failure(ClassTemporary, enhancedNoAnswer, "", "no mail exchanger of "+domain+" could be reached")
	attempts := 0
	for _, host := range rt.hosts {
		addrs, err := addresses(ctx, d.dns, host)
		if err != nil {
			if rt.implicit && errors.Is(err, dnscheck.ErrNotFound) {
				r := failure(ClassPermanent, enhancedNoRoute, host,
					fmt.Sprintf("domain %s has no MX and no address: it does not receive mail", domain))
				return nil, &r
			}
			last = failure(ClassTemporary, enhancedDNSFailure, host, fmt.Sprintf("resolving mail exchanger %s: %v", host, err))
			continue
		}
		for _, ip := range addrs {
			if attempts == maxConnectAttempts || ctx.Err() != nil {
				return nil, &last
			}
			attempts++
			s, err := d.connect(ctx, host, net.JoinHostPort(ip, d.port))
			if err != nil {
				last = setupFailure(host, err)
				continue
			}
			return s, nil
		}
	}
	return nil, &last
}

// connect opens a session to one exchanger address with opportunistic
// STARTTLS, retrying once without TLS when the handshake fails.
func (d *Direct) connect(ctx context.Context, host, addr string) (*session, error) {
	s, err := d.open(ctx, host, addr, true)
	if _, isTLS := errors.AsType[*tlsError](err); isTLS {
		s, err = d.open(ctx, host, addr, false)
	}
	return s, err
}

// open dials, says EHLO and, when tryTLS and offered, upgrades to TLS. A
// refused STARTTLS leaves the session in clear text.
func (d *Direct) open(ctx context.Context, host, addr string, tryTLS bool) (*session, error) {
	s, err := dialSession(ctx, &d.dialer, host, addr, nil, d.limits)
	if err != nil {
		return nil, err
	}
	stop := s.guard(ctx)
	err = d.prepare(ctx, s, tryTLS)
	if !stop() && err == nil {
		err = s.describe(ctx, net.ErrClosed)
	}
	if err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// prepare runs EHLO and opportunistic STARTTLS.
func (d *Direct) prepare(ctx context.Context, s *session, tryTLS bool) error {
	if err := s.hello(ctx, d.helo); err != nil {
		return err
	}
	if !tryTLS || !s.has("STARTTLS") {
		return nil
	}
	err := s.startTLS(ctx, d.tlsConfig(s.host))
	if _, refused := errors.AsType[*replyError](err); refused {
		return nil
	}
	if err != nil {
		return err
	}
	return s.hello(ctx, d.helo)
}

// tlsConfig is the STARTTLS configuration for one exchanger.
func (d *Direct) tlsConfig(host string) *tls.Config {
	if d.tls == nil {
		// Opportunistic encryption without authentication (RFC 7435); see
		// DirectOptions.TLSConfig.
		return &tls.Config{ServerName: host, InsecureSkipVerify: true, MinVersion: tls.VersionTLS12} //nolint:gosec // RFC 7435
	}
	config := d.tls.Clone()
	if config.ServerName == "" {
		config.ServerName = host
	}
	return config
}
