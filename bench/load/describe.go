package main

import (
	"context"
	"fmt"
	"time"

	"github.com/carteiro/carteiro/bench/internal/latency"
	"github.com/carteiro/carteiro/bench/internal/machine"
)

// timedRun is what measureTimed saw: the tally of the window and the CPU
// time the server and the generator spent in it.
type timedRun struct {
	tally           *tally
	window          time.Duration
	serverCPU       time.Duration
	loadCPU         time.Duration
	deliveredDuring int64
	machineBusy     string // share of all CPUs busy and stolen in the window
	cpuErr          error
}

// measureTimed runs the accept or batch scenario and reads CPU time and
// the sink's count at both ends of the measured window.
func measureTimed(ctx context.Context, o options, api *apiClient, submissionAddr string, pid int, sk *sink) timedRun {
	send := singleSender(api)
	switch o.scenario {
	case "batch":
		send = batchSender(api, o.batch)
	case "smtp":
		send = smtpSender(submissionAddr, api.key, o.clients, o.smtpPipelining)
	}
	result := make(chan *tally, 1)
	go func() { result <- runTimed(ctx, o.clients, o.warmup, o.duration, emailsPerCall(o), send) }()
	r := timedRun{window: o.duration}
	sleep(ctx, o.warmup)
	cpu0, err0 := machine.ProcessCPU(pid)
	self0, sink0 := machine.SelfCPU(), sk.Count()
	all0, errAll0 := machine.ReadCPU()
	sleep(ctx, o.duration)
	cpu1, err1 := machine.ProcessCPU(pid)
	self1, sink1 := machine.SelfCPU(), sk.Count()
	all1, errAll1 := machine.ReadCPU()
	if errAll0 == nil && errAll1 == nil {
		r.machineBusy = all1.Since(all0)
	}
	r.tally = <-result
	r.serverCPU, r.loadCPU, r.deliveredDuring = cpu1-cpu0, self1-self0, sink1-sink0
	if err0 != nil {
		r.cpuErr = err0
	} else {
		r.cpuErr = err1
	}
	return r
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// describeSMTP fills the report of an smtp run and compares it with the
// accept run made just before on the same server (issue 27's targets).
func describeSMTP(rep *report, o options, r, accept timedRun) {
	describeTimed(rep, o, r)
	rate := float64(r.tally.accepted) / r.window.Seconds()
	acceptRate := float64(accept.tally.accepted) / accept.window.Seconds()
	lat, acceptLat := latency.Summarize(r.tally.latencies), latency.Summarize(accept.tally.latencies)
	rep.row("session reuse", "%d messages per SMTP session (RSET, MAIL again), then QUIT and a new STARTTLS + AUTH", messagesPerSession)
	rep.row("client", "%s", map[bool]string{true: "pipelines RSET, MAIL, RCPT and DATA in one write (RFC 2920): two round trips per message",
		false: "waits for each reply: five round trips per message"}[o.smtpPipelining])
	rep.check(fmt.Sprintf("≥70 %% of the single POST /emails rate (%s)", perSecond(acceptRate)), perSecond(rate), acceptRate > 0 && rate >= 0.7*acceptRate)
	rep.check(fmt.Sprintf("p99 ≤ 2× the POST /emails p99 (%s)", millis(acceptLat.P99)), millis(lat.P99), lat.Count > 0 && lat.P99 <= 2*acceptLat.P99)
}

// describeTimed fills the report of an accept, batch or smtp run.
func describeTimed(rep *report, o options, r timedRun) {
	t := r.tally
	rate := float64(t.accepted) / r.window.Seconds()
	lat := latency.Summarize(t.latencies)
	rep.row("emails accepted per second", "**%s** (%s in %s)", perSecond(rate), thousands(t.accepted), r.window)
	rep.row("calls", "%s (%s), %d email(s) each", thousands(t.calls), perSecond(float64(t.calls)/r.window.Seconds()), emailsPerCall(o))
	rep.row("latency per call p50 / p90 / p99 / max", "%s / %s / %s / %s", millis(lat.P50), millis(lat.P90), millis(lat.P99), millis(lat.Max))
	rep.row("answers by status", "%s", statusCounts(t.statuses))
	if o.scenario == "batch" {
		rep.row("batch items refused", "%s", thousands(t.itemErrors))
	}
	if o.role == "api" {
		rep.row("server role", "api: it accepts and delivers nothing (a worker would)")
	} else {
		rep.row("delivered to the sink in the window", "%s (%s)", thousands(r.deliveredDuring), perSecond(float64(r.deliveredDuring)/r.window.Seconds()))
	}
	if r.cpuErr == nil {
		rep.row("CPU in the window: server / load generator", "%s / %s of one core (the machine has %s)",
			percentOfCore(r.serverCPU, r.window), percentOfCore(r.loadCPU, r.window), rep.machine.CPUs)
		rep.row("whole machine in the window (all CPUs, database included)", "%s", r.machineBusy)
	}
	switch o.scenario {
	case "accept":
		goal := map[string]float64{"sqlite": 5000, "postgres": 3000}[o.store]
		rep.check(fmt.Sprintf("≥%s emails/s accepted (%s, single POST /emails)", thousands(int64(goal)), o.store), perSecond(rate), rate >= goal)
		rep.check("p99 ≤25 ms", millis(lat.P99), lat.Count > 0 && lat.P99 <= 25*time.Millisecond)
	case "batch":
		rep.check("≥20,000 emails/s accepted (POST /emails/batch of 100)", perSecond(rate), rate >= 20000 && o.batch == maxBatch)
	}
	ok := "202"
	if o.scenario == "smtp" {
		ok = "250"
	}
	if failed := t.calls - t.statuses[ok]; failed > 0 {
		rep.note("%s call(s) were not answered %s: see the status counts.", thousands(failed), ok)
	}
}

// describeE2E fills the report of an end-to-end run.
func describeE2E(rep *report, o options, r e2eResult, unsigned int64) {
	t := r.submit
	acceptRate := 0.0
	if r.submitted > 0 {
		acceptRate = float64(t.accepted) / r.submitted.Seconds()
	}
	var deliverSpan time.Duration
	if !r.firstAccept.IsZero() && r.delivered > 0 {
		deliverSpan = r.lastDeliver.Sub(r.firstAccept)
	}
	deliverRate := 0.0
	if deliverSpan > 0 {
		deliverRate = float64(r.delivered) / deliverSpan.Seconds()
	}
	lat := latency.Summarize(t.latencies)
	rep.row("emails accepted", "%s of %s in %s: **%s**", thousands(t.accepted), thousands(int64(o.emails)), r.submitted.Round(time.Millisecond), perSecond(acceptRate))
	rep.row("batch latency p50 / p90 / p99 / max", "%s / %s / %s / %s", millis(lat.P50), millis(lat.P90), millis(lat.P99), millis(lat.Max))
	rep.row("answers by status", "%s; items refused: %s", statusCounts(t.statuses), thousands(t.itemErrors))
	rep.row("delivered to the sink", "%s, the last %s after the first accept", thousands(r.delivered), deliverSpan.Round(time.Millisecond))
	rep.row("delivered per second, first accept to last delivery", "**%s**", perSecond(deliverRate))
	rep.row("delivered per second, steady part (from 10 % to 90 % of the delivered count)", "%s", perSecond(r.steadyRate))
	rep.row("messages without DKIM-Signature", "%s", thousands(unsigned))
	met := r.complete && deliverRate >= 800 && t.accepted == int64(o.emails)
	rep.check(fmt.Sprintf("≥800 emails/s delivered, DKIM-signed, sustained over %s emails", thousands(int64(o.emails))), perSecond(deliverRate), met)
	rep.check("every message DKIM-signed", fmt.Sprintf("%s unsigned", thousands(unsigned)), unsigned == 0 && r.delivered > 0)
	if !r.complete {
		rep.note("**Incomplete:** only %s of %s accepted emails reached the sink within %s of the first accept; the rates above cover what finished.",
			thousands(r.delivered), thousands(t.accepted), o.timeout)
	}
}

// describeMemory adds the server's memory use.
func describeMemory(rep *report, peak, hwm int64, err error) {
	rep.row("server peak RSS (VmRSS sampled every 250 ms)", "%s", megabytes(peak))
	rep.row("server VmHWM at the end", "%s", megabytes(hwm))
	if err != nil {
		rep.note("Reading the server's memory failed at least once: %v", err)
	}
	rep.check("server peak RSS ≤400 MB", megabytes(max(peak, hwm)), max(peak, hwm) <= 400e6 && max(peak, hwm) > 0)
}

// percentOfCore formats CPU time over a wall-clock span as a percentage
// of one core.
func percentOfCore(cpu, wall time.Duration) string {
	return fmt.Sprintf("%.0f %%", 100*cpu.Seconds()/wall.Seconds())
}
