package main

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// tally is what a set of clients saw over a window.
type tally struct {
	calls      int64
	accepted   int64
	itemErrors int64
	statuses   map[string]int64 // every answer by status, 202 included
	latencies  []time.Duration
}

func newTally() *tally { return &tally{statuses: map[string]int64{}} }

func (t *tally) add(o outcome, latency time.Duration) {
	t.calls++
	t.accepted += int64(o.accepted)
	t.itemErrors += int64(o.itemErrors)
	t.statuses[o.status]++
	t.latencies = append(t.latencies, latency)
}

func (t *tally) merge(o *tally) {
	t.calls += o.calls
	t.accepted += o.accepted
	t.itemErrors += o.itemErrors
	for k, v := range o.statuses {
		t.statuses[k] += v
	}
	t.latencies = append(t.latencies, o.latencies...)
}

// runTimed has clients call send back to back (a closed loop) for warmup
// plus window, and tallies only the calls that started after the warm-up
// and finished within the window. Each call carries perCall emails,
// numbered from a shared counter so every recipient is distinct.
func runTimed(ctx context.Context, clients int, warmup, window time.Duration, perCall int, send sender) *tally {
	start := time.Now()
	measureFrom := start.Add(warmup)
	end := measureFrom.Add(window)
	ctx, cancel := context.WithDeadline(ctx, end.Add(30*time.Second)) // a stuck call cannot hold the run
	defer cancel()
	var next atomic.Int64
	perClient := make([]*tally, clients)
	var wg sync.WaitGroup
	for i := range clients {
		perClient[i] = newTally()
		wg.Go(func() {
			t := perClient[i]
			for ctx.Err() == nil {
				began := time.Now()
				if !began.Before(end) {
					return
				}
				o := send(ctx, next.Add(int64(perCall))-int64(perCall))
				done := time.Now()
				if !began.Before(measureFrom) && !done.After(end) {
					t.add(o, done.Sub(began))
				}
			}
		})
	}
	wg.Wait()
	total := newTally()
	for _, t := range perClient {
		total.merge(t)
	}
	return total
}
