package mta

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// errPoolClosed is returned by acquire after Close.
var errPoolClosed = errors.New("relay transport is closed")

// pool bounds how many relay connections are in use and keeps the idle ones
// for reuse. A slot is held for the whole of a delivery, so at most size
// connections exist at once (in use plus idle never exceeds it, since an
// idle connection only exists while its slot is free and taking one needs a
// slot). The bound adapts as a destination's does (D80): a slow-down reply
// halves it, and it grows back by one a minute.
type pool struct {
	idleTimeout time.Duration
	logger      *slog.Logger

	mu      sync.Mutex
	conc    concurrency
	inUse   int
	changed chan struct{} // closed and replaced when a slot may have freed
	idle    []*session    // most recently used last
	closed  bool

	stop chan struct{}
	done chan struct{}
}

// newPool starts the janitor that closes connections idle too long.
func newPool(size int, idleTimeout time.Duration, logger *slog.Logger) *pool {
	p := &pool{
		idleTimeout: idleTimeout,
		logger:      logger,
		conc:        newConcurrency(size, time.Now()),
		changed:     make(chan struct{}),
		stop:        make(chan struct{}),
		done:        make(chan struct{}),
	}
	go p.janitor()
	return p
}

// acquire waits for a free slot.
func (p *pool) acquire(ctx context.Context) error {
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return errPoolClosed
		}
		if p.inUse < p.conc.limit(time.Now()) {
			p.inUse++
			p.mu.Unlock()
			return nil
		}
		changed := p.changed
		p.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("waiting for a relay connection: %w", ctx.Err())
		}
	}
}

// releaseSlot frees the slot taken by acquire.
func (p *pool) releaseSlot() {
	p.mu.Lock()
	p.inUse--
	p.wake()
	p.mu.Unlock()
}

// wake tells the waiting deliveries to look again. p.mu is held.
func (p *pool) wake() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// slowDown halves the bound after a slow-down reply from the relay (D80),
// closing idle connections beyond it.
func (p *pool) slowDown(r Result) {
	p.mu.Lock()
	from, to, changed := p.conc.slowDown(time.Now())
	var extra []*session
	for len(p.idle) > 0 && len(p.idle)+p.inUse > to {
		extra = append(extra, p.idle[0])
		p.idle = p.idle[1:]
	}
	p.mu.Unlock()
	quitAll(extra)
	if changed {
		p.logger.Info("relay slowed down", "connections_from", from, "connections_to", to, "reply", r.Summary())
	}
}

// takeIdle returns the most recently used idle connection that has not been
// idle too long, closing the expired ones it meets; nil when none is left.
func (p *pool) takeIdle() *session {
	var expired []*session
	defer func() {
		for _, s := range expired {
			s.quit()
		}
	}()
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.idle) > 0 {
		s := p.idle[len(p.idle)-1]
		p.idle[len(p.idle)-1] = nil
		p.idle = p.idle[:len(p.idle)-1]
		if time.Since(s.lastUsed) < p.idleTimeout {
			return s
		}
		expired = append(expired, s)
	}
	return nil
}

// putIdle keeps s for reuse, or closes it when the pool is closed or has
// more connections than its bound allows.
func (p *pool) putIdle(s *session) {
	s.lastUsed = time.Now()
	p.mu.Lock()
	// s's own slot is still counted in inUse: keeping s must not leave
	// more connections open than the bound, which a slow-down lowered.
	if p.closed || len(p.idle)+p.inUse > p.conc.limit(time.Now()) {
		p.mu.Unlock()
		s.quit()
		return
	}
	p.idle = append(p.idle, s)
	p.mu.Unlock()
}

// janitor closes idle connections past idleTimeout, checking twice per
// timeout so none lingers much longer than asked.
func (p *pool) janitor() {
	defer close(p.done)
	ticker := time.NewTicker(max(p.idleTimeout/2, 10*time.Millisecond))
	defer ticker.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-ticker.C:
			for _, s := range p.expired() {
				s.quit()
			}
			p.mu.Lock()
			p.wake() // the bound may have grown back
			p.mu.Unlock()
		}
	}
}

// expired removes and returns the idle connections past idleTimeout.
func (p *pool) expired() []*session {
	p.mu.Lock()
	defer p.mu.Unlock()
	var old []*session
	kept := p.idle[:0]
	for _, s := range p.idle {
		if time.Since(s.lastUsed) >= p.idleTimeout {
			old = append(old, s)
		} else {
			kept = append(kept, s)
		}
	}
	clear(p.idle[len(kept):])
	p.idle = kept
	return old
}

// close stops the janitor and closes every idle connection. It is safe to
// call more than once.
func (p *pool) close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.wake()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	close(p.stop)
	<-p.done
	for _, s := range idle {
		s.quit()
	}
}

// idleCount reports how many connections wait for reuse.
func (p *pool) idleCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle)
}
