package mta

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
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
	// MaxParallelDomains bounds the domains delivered at once (default 8).
	MaxParallelDomains int
}

// Direct delivers to each recipient domain's mail exchangers (D3): one
// connection per domain carrying its recipients' transactions (one, or one
// per return path, D65), domains in parallel.
// It keeps no connections between deliveries and is safe for concurrent
// use.
type Direct struct {
	dns      resolver
	port     string
	helo     string
	heloErr  error
	tls      *tls.Config
	limits   timeouts
	parallel int
	dialer   net.Dialer
}

// NewDirect returns a direct-to-MX transport resolving through resolver.
func NewDirect(resolver *dnscheck.Resolver, opts DirectOptions) *Direct {
	if opts.Port <= 0 {
		opts.Port = DefaultDirectPort
	}
	if opts.MaxParallelDomains <= 0 {
		opts.MaxParallelDomains = DefaultMaxParallelDomains
	}
	helo, heloErr := heloName(opts.HeloName)
	return &Direct{
		dns:      resolver,
		port:     strconv.Itoa(opts.Port),
		helo:     helo,
		heloErr:  heloErr,
		tls:      opts.TLSConfig,
		limits:   timeouts{dial: opts.DialTimeout, command: opts.CommandTimeout, data: opts.DataTimeout}.withDefaults(),
		parallel: opts.MaxParallelDomains,
	}
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
		sub := Envelope{From: env.From, EnvelopeID: env.EnvelopeID, Recipients: make([]string, len(indexes))}
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
		wg.Go(func() {
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
		})
	}
	wg.Wait()
	return results
}

// deliverDomain delivers env's transactions (one, or one per return path,
// D65) to the domain's exchangers, one after the other on one connection;
// a connection lost on the way is opened again for the rest.
func (d *Direct) deliverDomain(ctx context.Context, domain string, env Envelope, data []byte) []Result {
	results := make([]Result, len(env.Recipients))
	txs := env.transactions()
	rt, fail := findRoute(ctx, d.dns, domain)
	if fail != nil {
		fill(results, txs, *fail)
		return results
	}
	for len(txs) > 0 {
		s, fail := d.connectRoute(ctx, domain, rt)
		if fail != nil {
			fill(results, txs, *fail)
			break
		}
		// Each connection completes at least one transaction (a broken one
		// leaves its recipients temporary), so this ends.
		txs = txs[d.transactAll(ctx, s, txs, data, results):]
	}
	return results
}

// transactAll runs txs on s until they are done or s breaks, then ends s.
// It returns how many transactions ran.
func (d *Direct) transactAll(ctx context.Context, s *session, txs []txEnvelope, data []byte, results []Result) int {
	for k, tx := range txs {
		if k > 0 {
			if err := s.ready(ctx); err != nil {
				s.close()
				return k
			}
		}
		got, healthy := s.transact(ctx, tx.env, data, txOptions{})
		tx.place(results, got)
		if !healthy {
			s.close() // a stalled or broken server would only stall QUIT too
			return k + 1
		}
	}
	s.quit()
	return len(txs)
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
