package mta

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// errPoolClosed is returned by acquire after Close.
var errPoolClosed = errors.New("relay transport is closed")

// pool bounds how many relay connections are in use and keeps the idle ones
// for reuse. A slot is held for the whole of a delivery, so at most size
// connections exist at once (in use plus idle never exceeds it, since an
// idle connection only exists while its slot is free and taking one needs a
// slot).
type pool struct {
	slots       chan struct{}
	idleTimeout time.Duration

	mu     sync.Mutex
	idle   []*session // most recently used last
	closed bool

	stop chan struct{}
	done chan struct{}
}

// newPool starts the janitor that closes connections idle too long.
func newPool(size int, idleTimeout time.Duration) *pool {
	p := &pool{
		slots:       make(chan struct{}, size),
		idleTimeout: idleTimeout,
		stop:        make(chan struct{}),
		done:        make(chan struct{}),
	}
	go p.janitor()
	return p
}

// acquire waits for a free slot.
func (p *pool) acquire(ctx context.Context) error {
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("waiting for a relay connection: %w", ctx.Err())
	}
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		<-p.slots
		return errPoolClosed
	}
	return nil
}

// releaseSlot frees the slot taken by acquire.
func (p *pool) releaseSlot() { <-p.slots }

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

// putIdle keeps s for reuse, or closes it when the pool is closed.
func (p *pool) putIdle(s *session) {
	s.lastUsed = time.Now()
	p.mu.Lock()
	if p.closed {
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
