package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/carteiro/carteiro/bench/internal/cli"
	"github.com/carteiro/carteiro/bench/internal/machine"
)

// capacity is what a capacity run measured: the delivery alone, with
// every event already recorded before the first attempt.
type capacity struct {
	Queued     time.Duration // sending until every delivery row existed
	Resume     time.Duration // the PATCH calls that queued the jobs
	Total      time.Duration // resume until the last arrival
	Steady     float64       // deliveries/s between the 10th and 90th percentile arrival
	Overall    float64       // deliveries/s from resume to the last arrival
	CPU        time.Duration // this process, resume to last arrival
	Busy       float64       // the machine's cores, same span; -1 if unknown
	AllArrived bool
}

// measureCapacity pauses the webhooks, sends o.emails sandbox emails as
// fast as the clients go, waits until every delivery row exists (pending,
// D50: a paused webhook's deliveries wait), then makes the webhooks active
// again and times the deliveries alone. Event generation, which the stream
// mode also measures, is thus kept out of the figure.
func measureCapacity(ctx context.Context, o options, r *rig, rep *report) error {
	for _, id := range r.hookIDs {
		if err := setWebhookStatus(ctx, r.api, r.svc.LiveKey, id, "paused"); err != nil {
			return err
		}
	}
	limit := int64((o.emails + o.batch - 1) / o.batch * o.batch)
	gen := newGenerator(r.api, r.svc.TestKey, o.outcome, o.batch, limit)
	began := time.Now()
	r.progress("capacity: sending %d %s emails with the webhooks paused", limit, o.outcome)
	gen.run(ctx, o.clients, 0, began, began.Add(o.drain))
	rep.noteGenerator(gen)
	rep.expected = rep.accepted * int64(o.perEmail())
	c := &capacity{Busy: -1}
	rep.capacity = c
	for {
		n, err := countDeliveries(ctx, r.svc.Store)
		if err != nil {
			return err
		}
		if n.Total >= rep.expected {
			break
		}
		if time.Since(began) > o.drain || ctx.Err() != nil {
			return fmt.Errorf("only %d of %d deliveries were recorded in %s", n.Total, rep.expected, o.drain)
		}
		time.Sleep(200 * time.Millisecond)
	}
	c.Queued = time.Since(began)
	r.progress("capacity: %d deliveries pending after %s; resuming the webhooks", rep.expected, c.Queued.Round(time.Millisecond))

	stopProfile, err := cli.StartCPUProfile(o.profile)
	if err != nil {
		return err
	}
	cpu0 := machine.SelfCPU()
	t0, err0 := machine.ReadCPU()
	resumed := time.Now()
	for _, id := range r.hookIDs {
		if err := setWebhookStatus(ctx, r.api, r.svc.LiveKey, id, "active"); err != nil {
			stopProfile()
			return err
		}
	}
	c.Resume = time.Since(resumed)
	for r.rcv.Count() < rep.expected && time.Since(resumed) < o.drain && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	c.CPU = machine.SelfCPU() - cpu0
	t1, err1 := machine.ReadCPU()
	c.Busy = machine.BusyFraction(t0, t1, err0, err1)
	stopProfile()

	arrivals := r.rcv.Arrivals()
	times := make([]time.Time, len(arrivals))
	for i, a := range arrivals {
		times[i] = a.Arrived
	}
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	c.AllArrived = int64(len(times)) >= rep.expected
	if n := len(times); n > 0 {
		c.Total = times[n-1].Sub(resumed)
		c.Overall = float64(n) / c.Total.Seconds()
		lo, hi := n/10, n*9/10
		if hi > lo && times[hi].After(times[lo]) {
			c.Steady = float64(hi-lo) / times[hi].Sub(times[lo]).Seconds()
		}
	}
	rep.checkDurability(ctx, r)
	rep.outcome = analyse(arrivals, window{}, gen.knows)
	return nil
}
