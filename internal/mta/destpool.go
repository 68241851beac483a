package mta

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// Destination defaults (D80).
const (
	// DefaultHoldDuration is how long a destination is held after
	// holdAfterFailures connection failures in a row.
	DefaultHoldDuration = 5 * time.Minute
	// DefaultDestinationIdleTimeout closes a destination's connection
	// unused for that long.
	DefaultDestinationIdleTimeout = 5 * time.Second
	// holdAfterFailures connection failures in a row hold a destination.
	holdAfterFailures = 5
	// quietPoolLifetime forgets a destination nobody delivered to for that
	// long, with nothing open and nothing to remember (no hold, no reduced
	// concurrency), so the map of destinations does not grow without end.
	quietPoolLifetime = time.Hour
)

// heldError refuses a delivery to a held destination.
type heldError struct {
	key   string
	until time.Time
}

func (e *heldError) Error() string {
	return fmt.Sprintf("destination %s is held until %s after %d connection failures in a row",
		e.key, e.until.UTC().Format(time.RFC3339), holdAfterFailures)
}

// destPool shapes the traffic to one destination (D80): it bounds the
// connections open to it (in use plus idle) by an adaptive limit, keeps
// idle ones for reuse by any email of any organization, hands a freed
// connection to transactional deliveries before broadcast ones, spaces
// transactions to an optional rate, and holds the destination after
// repeated connection failures. Connections are opened by the caller
// (Direct), which acquire allows to when there is room.
type destPool struct {
	key     string
	shape   Shaping
	hold    time.Duration
	idleFor time.Duration
	now     func() time.Time
	logger  *slog.Logger
	rate    *rate.Limiter // nil: no rate

	mu   sync.Mutex
	conc concurrency
	open int        // connections open: in use, being opened, or idle
	idle []*session // most recently used last
	// urgent and background are the waiters of the two lanes: background
	// ones (a broadcast's deliveries, Envelope.Background) are served
	// after every urgent one.
	urgent     []*connWaiter
	background []*connWaiter
	failures   int       // connection failures in a row
	held       time.Time // held until then
	lastUsed   time.Time
	closed     bool
	retiring   int // connections being closed, still counted in open

	delivered, deferred atomic.Int64
}

// grant is what a waiting delivery is handed: an idle connection, leave to
// open one (neither set), or a refusal.
type grant struct {
	s   *session
	err error
}

type connWaiter struct {
	ch    chan grant
	hosts []string // the exchangers it may use
}

func newDestPool(key string, shape Shaping, hold, idleFor time.Duration, now func() time.Time, logger *slog.Logger) *destPool {
	p := &destPool{
		key: key, shape: shape, hold: hold, idleFor: idleFor, now: now, logger: logger,
		conc: newConcurrency(shape.Connections, now()), lastUsed: now(),
	}
	if shape.MessagesPerMinute > 0 {
		p.rate = rate.NewLimiter(rate.Limit(float64(shape.MessagesPerMinute)/60), 1)
	}
	return p
}

// acquire returns an idle connection to one of hosts (the exchangers of
// the domain being delivered to: a connection is reused only for domains
// naming its exchanger, which every domain hosted there does, so no server
// is handed mail for a domain it was not named for), or nil when the caller
// may open one (it then reports connected, connectFailed or abandon). It
// waits while the destination has as many connections as its limit allows;
// an idle connection to another exchanger of the destination is then
// closed to make room.
func (p *destPool) acquire(ctx context.Context, background bool, hosts []string) (*session, error) {
	w := &connWaiter{ch: make(chan grant, 1), hosts: hosts}
	p.mu.Lock()
	now := p.now()
	p.lastUsed = now
	if err := p.heldErr(now); err != nil {
		p.mu.Unlock()
		return nil, err
	}
	if background {
		p.background = append(p.background, w)
	} else {
		p.urgent = append(p.urgent, w)
	}
	p.dispatch(now)
	p.mu.Unlock()
	select {
	case g := <-w.ch:
		return g.s, g.err
	case <-ctx.Done():
		p.mu.Lock()
		forgotten := p.forget(w)
		p.mu.Unlock()
		if !forgotten {
			p.giveBack(<-w.ch) // handed over as ctx ended
		}
		return nil, fmt.Errorf("waiting for a connection to %s: %w", p.key, ctx.Err())
	}
}

// giveBack returns a grant nobody will use.
func (p *destPool) giveBack(g grant) {
	switch {
	case g.err != nil:
	case g.s != nil:
		p.release(g.s, true)
	default:
		p.abandon()
	}
}

// release ends the use of s: it goes to the first waiting delivery it
// suits, or idle, unless it is broken (reusable false), carried its share
// of transactions, or the destination has more connections than its limit
// now allows; then it is closed and its room given to a waiting delivery.
func (p *destPool) release(s *session, reusable bool) {
	p.mu.Lock()
	now := p.now()
	keep := reusable && !p.closed && s.messages < p.shape.TransactionsPerConnection &&
		p.open <= p.conc.limit(now) && p.heldErr(now) == nil
	if keep {
		s.lastUsed = time.Now()
		p.idle = append(p.idle, s)
		p.dispatch(now)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	// Closed, and the server's close awaited unless the connection is
	// broken (session.end), before its room is given to another delivery,
	// so the destination never sees one connection more than the limit,
	// even when a 421 ended this one.
	s.end()
	p.freeRoom(1)
}

// freeRoom gives the room of n closed connections to waiting deliveries.
func (p *destPool) freeRoom(n int) {
	p.mu.Lock()
	p.open -= n
	p.dispatch(p.now())
	p.mu.Unlock()
}

// retire closes connections taken out of the pool but still counted in
// p.open, then frees their room; it runs in the background of a caller
// holding p.mu.
func (p *destPool) retire(ss []*session) {
	p.retiring += len(ss)
	go func() {
		quitAll(ss)
		p.mu.Lock()
		p.retiring -= len(ss)
		p.open -= len(ss)
		p.dispatch(p.now())
		p.mu.Unlock()
	}()
}

// connected reports a connection opened: the failures in a row end.
func (p *destPool) connected() {
	p.mu.Lock()
	p.failures = 0
	p.mu.Unlock()
}

// abandon gives back the room of a connection that was not opened for a
// reason other than the destination's (a domain without exchangers).
func (p *destPool) abandon() {
	p.mu.Lock()
	p.open--
	p.dispatch(p.now())
	p.mu.Unlock()
}

// connectFailed reports that no exchanger could be reached. After
// holdAfterFailures in a row the destination is held: every waiting and
// new delivery is refused until the hold ends (D80).
func (p *destPool) connectFailed() {
	p.mu.Lock()
	now := p.now()
	p.open--
	p.failures++
	heldNow := p.failures >= holdAfterFailures && p.heldErr(now) == nil
	if heldNow {
		p.held = now.Add(p.hold)
		p.failures = 0
	}
	p.dispatch(now)
	until := p.held
	p.mu.Unlock()
	if heldNow {
		p.logger.Info("destination held", "destination", p.key,
			"failures", holdAfterFailures, "until", until.UTC().Format(time.RFC3339))
	}
}

// slowDown applies a slow-down reply: the limit halves (D80), and idle
// connections beyond it close at once.
func (p *destPool) slowDown(r Result) {
	p.mu.Lock()
	now := p.now()
	from, to, changed := p.conc.slowDown(now)
	var extra []*session
	for p.open-len(extra) > to && len(p.idle) > 0 {
		extra = append(extra, p.idle[0])
		p.idle = p.idle[1:]
	}
	p.mu.Unlock()
	if len(extra) > 0 {
		quitAll(extra)
		p.freeRoom(len(extra))
	}
	if changed {
		p.logger.Info("destination slowed down", "destination", p.key, "connections_from", from,
			"connections_to", to, "reply", r.Summary())
	}
}

// wait spaces transactions to the destination's rate, if it has one.
func (p *destPool) wait(ctx context.Context) error {
	if p.rate == nil {
		return nil
	}
	if err := p.rate.Wait(ctx); err != nil {
		return fmt.Errorf("waiting for the rate of %s: %w", p.key, err)
	}
	return nil
}

// count adds a delivery's outcomes to the destination's counters.
func (p *destPool) count(results []Result) {
	for _, r := range results {
		switch r.Class {
		case ClassAccepted:
			p.delivered.Add(1)
		case ClassTemporary:
			p.deferred.Add(1)
		}
	}
}

// tick closes connections idle too long and lets the concurrency earned
// back reach waiting deliveries. It reports whether the pool is quiet
// enough to be forgotten.
func (p *destPool) tick() (forget bool) {
	p.mu.Lock()
	now := p.now()
	var expired []*session
	kept := p.idle[:0]
	for _, s := range p.idle {
		if time.Since(s.lastUsed) >= p.idleFor {
			expired = append(expired, s)
		} else {
			kept = append(kept, s)
		}
	}
	clear(p.idle[len(kept):])
	p.idle = kept
	p.dispatch(now)
	forget = p.open == 0 && len(p.urgent)+len(p.background) == 0 && p.heldErr(now) == nil &&
		p.conc.limit(now) == p.conc.ceiling && now.Sub(p.lastUsed) >= quietPoolLifetime
	p.mu.Unlock()
	if len(expired) > 0 {
		quitAll(expired)
		p.freeRoom(len(expired))
	}
	return forget
}

// close closes the idle connections; connections in use close when
// released.
func (p *destPool) close() {
	p.mu.Lock()
	p.closed = true
	idle := p.idle
	p.open -= len(idle)
	p.idle = nil
	p.mu.Unlock()
	quitAll(idle)
}

// heldErr is the refusal while the destination is held. p.mu is held.
func (p *destPool) heldErr(now time.Time) error {
	if now.Before(p.held) {
		return &heldError{key: p.key, until: p.held}
	}
	return nil
}

// takeIdle removes and returns the most recently used idle connection to
// one of hosts that is still fresh, nil when there is none; the expired
// ones met on the way are retired in the background (p.mu is held, which
// must not wait on a QUIT). p.mu is held.
func (p *destPool) takeIdle(hosts []string) *session {
	var expired []*session
	defer func() {
		if len(expired) > 0 {
			p.retire(expired)
		}
	}()
	for i := len(p.idle) - 1; i >= 0; i-- {
		s := p.idle[i]
		if time.Since(s.lastUsed) >= p.idleFor {
			expired = append(expired, s)
			p.removeIdle(i)
			continue
		}
		if slices.Contains(hosts, s.host) {
			p.removeIdle(i)
			return s
		}
	}
	return nil
}

// removeIdle removes p.idle[i]. p.mu is held.
func (p *destPool) removeIdle(i int) {
	p.idle = slices.Delete(p.idle, i, i+1)
}

// dispatch serves waiting deliveries in order, transactional first: an idle
// connection to one of their exchangers, else room to open one, else the
// room of an idle connection to another exchanger, closed for it. While the
// destination is held it refuses them all. p.mu is held; the channels are
// buffered, so nothing blocks.
func (p *destPool) dispatch(now time.Time) {
	if err := p.heldErr(now); err != nil {
		for w := p.nextWaiter(); w != nil; w = p.nextWaiter() {
			w.ch <- grant{err: err}
		}
		return
	}
	for {
		w := p.firstWaiter()
		if w == nil {
			return
		}
		if s := p.takeIdle(w.hosts); s != nil {
			p.nextWaiter().ch <- grant{s: s}
			continue
		}
		if p.open >= p.conc.limit(now) {
			if len(p.idle) > 0 && p.retiring < len(p.urgent)+len(p.background) {
				// Close the least recently used idle connection; its room
				// reaches a waiting delivery once it is closed.
				victim := p.idle[0]
				p.removeIdle(0)
				p.retire([]*session{victim})
			}
			return
		}
		p.open++
		p.nextWaiter().ch <- grant{}
	}
}

// firstWaiter is the delivery nextWaiter would return, left in line.
func (p *destPool) firstWaiter() *connWaiter {
	switch {
	case len(p.urgent) > 0:
		return p.urgent[0]
	case len(p.background) > 0:
		return p.background[0]
	}
	return nil
}

// nextWaiter removes and returns the first waiting delivery, transactional
// before broadcast; nil when none waits. p.mu is held.
func (p *destPool) nextWaiter() *connWaiter {
	line := &p.urgent
	if len(*line) == 0 {
		line = &p.background
	}
	if len(*line) == 0 {
		return nil
	}
	w := (*line)[0]
	(*line)[0] = nil
	*line = (*line)[1:]
	return w
}

// forget removes a waiter that gave up; false means it was already handed
// a grant. p.mu is held.
func (p *destPool) forget(w *connWaiter) bool {
	for _, line := range []*[]*connWaiter{&p.urgent, &p.background} {
		for i, x := range *line {
			if x == w {
				*line = append((*line)[:i], (*line)[i+1:]...)
				return true
			}
		}
	}
	return false
}

// DestinationStats is a destination's state for /metrics (D80).
type DestinationStats struct {
	Destination string
	// Connections open now (in use or idle), and the adaptive limit.
	Connections, Limit int
	// Queued counts deliveries waiting for a connection.
	Queued int
	// Held reports a destination held after connection failures.
	Held bool
	// Delivered and Deferred count recipients accepted and temporarily
	// failed since the process started.
	Delivered, Deferred int64
}

// stats reads the pool's state.
func (p *destPool) stats() DestinationStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	return DestinationStats{
		Destination: p.key, Connections: p.open, Limit: p.conc.limit(now), Queued: len(p.urgent) + len(p.background),
		Held: p.heldErr(now) != nil, Delivered: p.delivered.Load(), Deferred: p.deferred.Load(),
	}
}

// quitAll says QUIT on each session.
func quitAll(ss []*session) {
	for _, s := range ss {
		s.quit()
	}
}
