package main

import (
	"context"
	"time"

	"github.com/carteiro/carteiro/bench/internal/cli"
	"github.com/carteiro/carteiro/bench/internal/machine"
)

// measureStream sends at the offered rate for warm-up plus the window,
// measuring throughput and latency in the window, then waits for the
// backlog and checks every delivery row.
func measureStream(ctx context.Context, o options, r *rig, rep *report) error {
	gen := newGenerator(r.api, r.svc.TestKey, o.outcome, o.batch, 0)
	start := time.Now()
	w := window{From: start.Add(o.warmup), To: start.Add(o.warmup + o.duration)}
	r.progress("sending %s emails (%d deliveries each) at %s for %s warm-up + %s measured",
		o.outcome, o.perEmail(), rateText(o), o.warmup, o.duration)
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		gen.run(ctx, o.clients, o.emailRate(), start, w.To)
	}()
	m, err := measureWindow(ctx, o, w, gen, r.rcv, r.progress)
	<-sent
	if err != nil {
		return err
	}
	rep.window, rep.measured = w, m
	rep.noteGenerator(gen)
	expected := rep.accepted * int64(o.perEmail())
	rep.expected = expected
	r.progress("sending stopped: %d emails accepted, waiting for %d deliveries", rep.accepted, expected)
	drainStart, owedAtStop := time.Now(), expected-r.rcv.Count()
	for r.rcv.Count() < expected && time.Since(drainStart) < o.drain && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
	rep.drain, rep.drained = time.Since(drainStart), owedAtStop-(expected-r.rcv.Count())
	rep.checkDurability(ctx, r)
	rep.outcome = analyse(r.rcv.Arrivals(), w, gen.knows)
	return nil
}

// measured is what is sampled at the edges of the window.
type measured struct {
	CPU     time.Duration // process CPU time used in the window
	Busy    float64       // share of the machine's cores busy in the window, -1 if unknown
	Backlog int64         // deliveries owed but not arrived at the window's end
}

// measureWindow waits through warm-up and the window, sampling CPU (and
// profiling, if asked) over the window, and reports progress.
func measureWindow(ctx context.Context, o options, w window, gen *generator, rcv *receiver, progress func(string, ...any)) (measured, error) {
	var m measured
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	wait := func(until time.Time) error {
		timer := time.NewTimer(time.Until(until))
		defer timer.Stop()
		for {
			select {
			case <-timer.C:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			case <-tick.C:
				progress("accepted %d emails, %d deliveries arrived (load %s)", gen.accepted.Load(), rcv.Count(), machine.LoadAverage())
			}
		}
	}
	if err := wait(w.From); err != nil {
		return m, err
	}
	stopProfile, err := cli.StartCPUProfile(o.profile)
	if err != nil {
		return m, err
	}
	cpu0 := machine.SelfCPU()
	ticks0, err0 := machine.ReadCPU()
	err = wait(w.To)
	m.CPU = machine.SelfCPU() - cpu0
	ticks1, err1 := machine.ReadCPU()
	m.Busy = machine.BusyFraction(ticks0, ticks1, err0, err1)
	m.Backlog = gen.accepted.Load()*int64(o.perEmail()) - rcv.Count()
	stopProfile()
	return m, err
}
