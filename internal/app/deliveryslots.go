package app

import (
	"context"
	"sync"
)

// deliverySlots bounds the delivery attempts in flight in this process. A
// group job (DeliverGroupJob) starts one attempt per email as slots free
// up, so the bound holds however many emails a job carries. Waiting
// transactional attempts get a freed slot before waiting broadcast ones:
// a password reset accepted during a broadcast goes ahead of the
// newsletters already waiting, as River's priorities order their jobs.
type deliverySlots struct {
	mu   sync.Mutex
	free int
	// waiting holds the blocked acquirers, urgent ones first in line.
	urgent, background []chan struct{}
}

func newDeliverySlots(n int) *deliverySlots {
	return &deliverySlots{free: max(1, n)}
}

// acquire takes a slot, waiting for one while ctx allows; background
// callers yield to urgent ones.
func (s *deliverySlots) acquire(ctx context.Context, background bool) error {
	s.mu.Lock()
	if s.free > 0 { // then nobody waits: a freed slot goes to a waiter first
		s.free--
		s.mu.Unlock()
		return nil
	}
	ready := make(chan struct{})
	if background {
		s.background = append(s.background, ready)
	} else {
		s.urgent = append(s.urgent, ready)
	}
	s.mu.Unlock()
	select {
	case <-ready:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.forget(ready, background) {
			return ctx.Err()
		}
		// The slot was handed over as ctx ended: give it back.
		s.handOver()
		return ctx.Err()
	}
}

// release returns a slot, handing it to the first waiter in line.
func (s *deliverySlots) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handOver()
}

// handOver gives one slot to the next waiter, or frees it. s.mu is held.
func (s *deliverySlots) handOver() {
	var next chan struct{}
	switch {
	case len(s.urgent) > 0:
		next, s.urgent = s.urgent[0], s.urgent[1:]
	case len(s.background) > 0:
		next, s.background = s.background[0], s.background[1:]
	default:
		s.free++
		return
	}
	close(next)
}

// forget removes a waiter that gave up; false means it was already handed
// a slot. s.mu is held.
func (s *deliverySlots) forget(ready chan struct{}, background bool) bool {
	line := &s.urgent
	if background {
		line = &s.background
	}
	for i, c := range *line {
		if c == ready {
			*line = append((*line)[:i], (*line)[i+1:]...)
			return true
		}
	}
	return false
}
