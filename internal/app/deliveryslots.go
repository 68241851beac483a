package app

import (
	"context"
	"sync"
	"time"
)

// deliverySlots bounds the delivery attempts in flight in this process. A
// group job (DeliverGroupJob) starts one attempt per email as slots free
// up, so the bound holds however many emails a job carries. Waiting
// transactional attempts get a freed slot before waiting broadcast ones:
// a password reset accepted during a broadcast goes ahead of the
// newsletters already waiting, as River's priorities order their jobs.
//
// While busy says the process is busy accepting email (acceptLoad), the
// bound drops to a twelfth of the slots: deliveries then give the CPU to
// the callers waiting for their 202, and catch up when the burst ends.
// Attempts already running finish; freed slots are not refilled until
// fewer than the lower bound are in flight. They yield only while every
// waiting attempt became due less than maxYieldLag ago: a load of accepts
// that never ends cannot hold email back for longer than that.
type deliverySlots struct {
	size     int         // the bound while accepts leave room
	yielding int         // the bound while busy() holds
	busy     func() bool // nil: never yields
	now      func() time.Time

	mu    sync.Mutex
	inUse int
	// waiting holds the blocked acquirers of the two lanes, urgent ones
	// first in line, then background ones (a broadcast's deliveries).
	urgent, background []slotWaiter
}

// maxYieldLag is the longest an attempt waits, counted from when its job
// became due, before deliveries stop yielding to accepts. A burst of
// 20 s at 5,000 accepts/s leaves about a minute of deliveries behind it
// on a 2-core machine (docs/benchmarks.md).
const maxYieldLag = time.Minute

type slotWaiter struct {
	ready chan struct{}
	due   time.Time
}

func newDeliverySlots(n int, busy func() bool, now func() time.Time) *deliverySlots {
	n = max(1, n)
	return &deliverySlots{size: n, yielding: max(1, n/12), busy: busy, now: now}
}

// limit is the bound that holds now. s.mu is held.
func (s *deliverySlots) limit() int {
	if s.busy == nil || !s.busy() {
		return s.size
	}
	now := s.now()
	for _, line := range [][]slotWaiter{s.urgent, s.background} {
		for _, w := range line {
			if now.Sub(w.due) >= maxYieldLag {
				return s.size
			}
		}
	}
	return s.yielding
}

// acquire takes a slot, waiting for one while ctx allows; background
// callers yield to urgent ones. due is when the attempt's job became due.
func (s *deliverySlots) acquire(ctx context.Context, background bool, due time.Time) error {
	s.mu.Lock()
	if len(s.urgent)+len(s.background) == 0 && s.inUse < s.limit() {
		s.inUse++
		s.mu.Unlock()
		return nil
	}
	ready := make(chan struct{})
	if background {
		s.background = append(s.background, slotWaiter{ready, due})
	} else {
		s.urgent = append(s.urgent, slotWaiter{ready, due})
	}
	// The bound may have risen since the last release.
	s.handOut()
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
		// The slot was given to it as ctx ended: give it back.
		s.inUse--
		s.handOut()
		return ctx.Err()
	}
}

// release returns a slot, handing it to the first waiter in line.
func (s *deliverySlots) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inUse--
	s.handOut()
}

// handOut gives slots to the waiters in line while the bound allows. s.mu
// is held.
func (s *deliverySlots) handOut() {
	if len(s.urgent)+len(s.background) == 0 {
		return
	}
	for limit := s.limit(); s.inUse < limit; {
		var next chan struct{}
		switch {
		case len(s.urgent) > 0:
			next, s.urgent = s.urgent[0].ready, s.urgent[1:]
		case len(s.background) > 0:
			next, s.background = s.background[0].ready, s.background[1:]
		default:
			return
		}
		s.inUse++
		close(next)
	}
}

// forget removes a waiter that gave up; false means it was already given
// a slot. s.mu is held.
func (s *deliverySlots) forget(ready chan struct{}, background bool) bool {
	line := &s.urgent
	if background {
		line = &s.background
	}
	for i, w := range *line {
		if w.ready == ready {
			*line = append((*line)[:i], (*line)[i+1:]...)
			return true
		}
	}
	return false
}
