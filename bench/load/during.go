package main

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// duringRun is what the clients saw while an action ran: the tally of the
// calls that started after the action started and ended before it ended,
// how long the action took and what it returned, and how many emails were
// accepted before it started.
type duringRun struct {
	tally          *tally
	took           time.Duration
	err            error
	acceptedBefore int64
}

// runDuring keeps clients calling send back to back (a closed loop) from
// the start, runs action after warmup, and stops the clients once it
// returns. Only calls inside the action's span are tallied, so the
// latencies are those of accepts made while, say, a backup or a purge ran;
// the same runner with a sleep as the action is the comparison without it.
func runDuring(ctx context.Context, clients int, warmup time.Duration, send sender, action func(context.Context) error) duringRun {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next, before   atomic.Int64
		from, end      atomic.Int64 // unix nanoseconds; 0 while unknown
		wg             sync.WaitGroup
		perClient      = make([]*tally, clients)
		stopping       = make(chan struct{})
		stoppingClosed sync.Once
	)
	for i := range clients {
		perClient[i] = newTally()
		wg.Go(func() {
			t := perClient[i]
			for ctx.Err() == nil {
				select {
				case <-stopping:
					return
				default:
				}
				began := time.Now()
				o := send(ctx, next.Add(1)-1)
				done := time.Now()
				f, e := from.Load(), end.Load()
				if f == 0 || done.UnixNano() < f {
					before.Add(int64(o.accepted))
				}
				if f != 0 && began.UnixNano() >= f && (e == 0 || done.UnixNano() <= e) {
					t.add(o, done.Sub(began))
				}
			}
		})
	}
	sleep(ctx, warmup)
	r := duringRun{}
	start := time.Now()
	from.Store(start.UnixNano())
	r.acceptedBefore = before.Load()
	r.err = action(ctx)
	r.took = time.Since(start)
	end.Store(time.Now().UnixNano())
	stoppingClosed.Do(func() { close(stopping) })
	wg.Wait()
	r.tally = newTally()
	for _, t := range perClient {
		r.tally.merge(t)
	}
	return r
}

// sleepAction is the action of a comparison run: nothing but time.
func sleepAction(d time.Duration) func(context.Context) error {
	return func(ctx context.Context) error { sleep(ctx, d); return ctx.Err() }
}
