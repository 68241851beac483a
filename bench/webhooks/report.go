package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/carteiro/carteiro/bench/internal/latency"
	"github.com/carteiro/carteiro/bench/internal/machine"
)

// Targets of the "events out" issue.
const (
	targetRate    = 2000.0
	targetLatency = time.Second
)

// report gathers one run's figures and prints them as Markdown.
type report struct {
	opts    options
	machine machine.Description
	when    time.Time

	window        window
	measured      measured
	accepted      int64
	refused       int64
	failedBatches int64
	behind        time.Duration
	genErr        error
	expected      int64
	drain         time.Duration
	drained       int64 // deliveries that arrived after sending stopped
	rows          rowCounts
	rowsErr       error
	apiErr        error
	outcome       outcome
	bad           int64
	loadAtEnd     string
	capacity      *capacity // capacity mode only
	// incomplete: not every owed delivery had arrived when the run gave
	// up waiting (-drain), so durability can only be checked in part.
	incomplete bool
	notes      []string
}

// noteGenerator keeps what the sender counted.
func (r *report) noteGenerator(g *generator) {
	r.accepted, r.refused, r.failedBatches = g.accepted.Load(), g.refused.Load(), g.failed.Load()
	r.behind, r.genErr = time.Duration(g.behind.Load()), g.FirstErr()
}

// checkDurability counts the delivery rows (waiting up to 30 s for the
// last commits: a row is written just after its answer) and asks the API.
func (r *report) checkDurability(ctx context.Context, rg *rig) {
	r.incomplete = rg.rcv.Count() < r.expected
	if r.incomplete {
		r.rows, r.rowsErr = countDeliveries(ctx, rg.svc.Store)
	} else {
		r.rows, r.rowsErr = waitForRows(ctx, rg.svc.Store, r.expected, 30*time.Second)
		r.apiErr = apiCheck(ctx, rg.api, rg.svc.LiveKey, rg.hookIDs)
	}
	r.bad = rg.rcv.Bad()
}

func (r *report) note(format string, args ...any) {
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
}

func rateText(o options) string {
	if o.rate == 0 {
		return fmt.Sprintf("full speed (%d clients, batches of %d)", o.clients, o.batch)
	}
	return fmt.Sprintf("%.0f deliveries/s (%.1f emails/s, %d clients, batches of %d)", o.rate, o.emailRate(), o.clients, o.batch)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

// durable tells whether every owed delivery arrived once and is recorded
// as one successful attempt, with nothing else in the table.
func (r *report) durable() bool {
	return r.rowsErr == nil && r.apiErr == nil && r.expected > 0 && r.rows.SuccessFirst == r.expected &&
		r.rows.Total == r.expected && int64(r.outcome.Unique) == r.expected && r.outcome.Strangers == 0 && r.bad == 0
}

func (r *report) write(w io.Writer) {
	o := r.opts
	store := map[string]string{"sqlite": "SQLite (WAL, synchronous=FULL) on the local disk", "postgres": "PostgreSQL on 127.0.0.1 (fresh schema)"}[o.store]
	recv := "HTTP/1.1"
	if o.http2 {
		recv = "HTTP/2"
	}
	title := fmt.Sprintf("### Webhooks: %s, %d webhook(s), %s emails, offered %s\n\n", o.store, o.hooks, o.outcome, strings.SplitN(rateText(o), " (", 2)[0])
	if r.capacity != nil {
		title = fmt.Sprintf("### Webhook delivery capacity: %s, %d webhook(s), %s emails\n\n", o.store, o.hooks, o.outcome)
	}
	fmt.Fprintf(w, "%s| | |\n|---|---|\n", title)
	row := func(k, format string, args ...any) { fmt.Fprintf(w, "| %s | %s |\n", k, fmt.Sprintf(format, args...)) }
	row("when", "%s", r.when.UTC().Format("2006-01-02 15:04 UTC"))
	row("machine", "%s", r.machine.Summary(r.loadAtEnd))
	row("go, code", "%s", r.machine.Code())
	row("store", "%s", store)
	row("command", "`go run ./bench/webhooks %s`", strings.Join(o.args, " "))
	row("setup", "service in-process (internal/server, production queue settings%s); receiver in-process, HTTPS (own CA), %s, answers 200; each webhook signed with a secret", pollText(o.poll), recv)
	if r.capacity != nil {
		r.writeCapacity(row)
	} else {
		r.writeStream(row)
	}
	row("durability", "%s", r.durabilityText())
	if r.genErr != nil {
		row("first sending error", "%v", r.genErr)
	}
	for _, n := range r.notes {
		row("note", "%s", n)
	}
	fmt.Fprintln(w)
}

// writeStream is the stream mode's rows.
func (r *report) writeStream(row func(k, format string, args ...any)) {
	o, out := r.opts, r.outcome
	rate := float64(out.Delivered) / r.window.Seconds()
	p50, p99 := latency.Percentile(out.Latencies, 50), latency.Percentile(out.Latencies, 99)
	latOK := len(out.Latencies) > 0 && p99 <= targetLatency
	row("offered", "%s; each email → %d events × %d webhook(s) = %d deliveries", rateText(o), eventsPerEmail[o.outcome], o.hooks, o.perEmail())
	row("emails accepted", "%d (refused items %d, failed batches %d); sender at most %s behind schedule", r.accepted, r.refused, r.failedBatches, ms(r.behind))
	row("window", "%.0f s after %s warm-up; deliveries owed for events recorded in it: %d (%.0f/s)", r.window.Seconds(), o.warmup, out.Recorded, float64(out.Recorded)/r.window.Seconds())
	row("**deliveries/s** (first arrivals in the window)", "**%.0f/s** — target ≥ 2,000/s: %s", rate, verdict(rate >= targetRate))
	row("**event recorded → first attempt arrives**", "p50 %s, p90 %s, **p99 %s**, max %s — target p99 ≤ 1 s: %s",
		ms(p50), ms(latency.Percentile(out.Latencies, 90)), ms(p99), ms(latency.Percentile(out.Latencies, 100)), verdict(latOK))
	row("same, whole run incl. drain", "p50 %s, p99 %s, max %s (%d deliveries)", ms(latency.Percentile(out.LatenciesAll, 50)),
		ms(latency.Percentile(out.LatenciesAll, 99)), ms(latency.Percentile(out.LatenciesAll, 100)), len(out.LatenciesAll))
	row("backlog at the window's end", "%d deliveries owed, not yet arrived", r.measured.Backlog)
	row("drain after sending stopped", "%s", r.drainText())
	row("CPU in the window", "this process %.0f%% of one core (service, receiver and sender share the %d CPUs); whole machine %s busy",
		100*r.measured.CPU.Seconds()/r.window.Seconds(), r.machine.CPUs, shareText(r.measured.Busy))
}

// writeCapacity is the capacity mode's rows.
func (r *report) writeCapacity(row func(k, format string, args ...any)) {
	o, c := r.opts, r.capacity
	row("method", "webhooks paused; %d %s emails sent as fast as %d clients go (batches of %d) → %d deliveries recorded `pending` in %s; then PATCH status active (queues them all, %s) and the deliveries alone are timed",
		r.accepted, o.outcome, o.clients, o.batch, r.expected, c.Queued.Round(time.Millisecond), c.Resume.Round(time.Millisecond))
	row("**delivery capacity**", "**%.0f/s** between the 10th and 90th percentile arrival; %.0f/s from resume to the last (%s) — target ≥ 2,000/s: %s",
		c.Steady, c.Overall, c.Total.Round(time.Millisecond), verdict(c.Steady >= targetRate))
	row("CPU while delivering", "this process %.0f%% of one core; whole machine %s busy",
		100*c.CPU.Seconds()/c.Total.Seconds(), shareText(c.Busy))
}

// drainText tells how the backlog left when sending stopped went: with no
// API traffic competing, its rate is the delivery capacity alone.
func (r *report) drainText() string {
	s := fmt.Sprintf("%d deliveries in %s", r.drained, r.drain.Round(100*time.Millisecond))
	if r.drained >= 1000 {
		s += fmt.Sprintf(" (%.0f/s; no API traffic, but emails still queued are still being processed)", float64(r.drained)/r.drain.Seconds())
	}
	return s
}

func shareText(share float64) string {
	if share < 0 {
		return "unknown"
	}
	return fmt.Sprintf("%.0f%%", 100*share)
}

func pollText(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return ", queue poll " + d.String()
}

func (r *report) durabilityText() string {
	var b strings.Builder
	verdict := map[bool]string{true: "OK", false: "**FAILED**"}[r.durable()]
	if r.incomplete && r.rowsErr == nil && r.rows.ByStatus["failed"] == 0 && r.rows.ByStatus["exhausted"] == 0 &&
		r.outcome.Strangers == 0 && r.bad == 0 {
		verdict = "**INCOMPLETE** (the backlog had not drained when the run stopped waiting; no attempt failed)"
	}
	fmt.Fprintf(&b, "%s: store has %d delivery rows, %d `success` after 1 attempt answered 200 (want %d)",
		verdict, r.rows.Total, r.rows.SuccessFirst, r.expected)
	statuses := make([]string, 0, len(r.rows.ByStatus))
	for s, n := range r.rows.ByStatus {
		statuses = append(statuses, fmt.Sprintf("%s %d", s, n))
	}
	sort.Strings(statuses)
	fmt.Fprintf(&b, " [%s]; receiver: %d unique, %d duplicate, %d unknown email, %d unreadable", strings.Join(statuses, ", "),
		r.outcome.Unique, r.outcome.Duplicates, r.outcome.Strangers, r.bad)
	if r.rowsErr != nil {
		fmt.Fprintf(&b, "; store count failed: %v", r.rowsErr)
	}
	switch {
	case r.incomplete:
		b.WriteString("; counted when the wait ended, while deliveries were still going on (so the receiver's count, taken later, can be higher)")
	case r.apiErr != nil:
		fmt.Fprintf(&b, "; API check: %v", r.apiErr)
	default:
		b.WriteString("; GET /deliveries agrees (no pending/failed/exhausted, successes show 1 attempt, 200)")
	}
	return b.String()
}
