package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/carteiro/carteiro/bench/internal/latency"
	"github.com/carteiro/carteiro/bench/internal/machine"
)

// targetP99 is issue 26's target for every page's first byte.
const targetP99 = 50 * time.Millisecond

// report gathers one run's figures and prints them as Markdown.
type report struct {
	opts        options
	machine     machine.Description
	when        time.Time
	seedTook    time.Duration
	growth      growth
	analyzeTook time.Duration
	loadAtStart string
	loadAtEnd   string
	timings     *timings
	notes       []string
}

func (r *report) note(format string, args ...any) {
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

func (r *report) write(w io.Writer) {
	o, g := r.opts, r.growth
	store := map[string]string{"sqlite": "SQLite (WAL, synchronous=FULL) on the local disk", "postgres": "PostgreSQL on 127.0.0.1 (fresh schema)"}[o.store]
	fmt.Fprintf(w, "### Dashboard first byte: %s, %d emails, %d users\n\n| | |\n|---|---|\n", o.store, g.Emails, o.users)
	row := func(k, format string, args ...any) { fmt.Fprintf(w, "| %s | %s |\n", k, fmt.Sprintf(format, args...)) }
	row("when", "%s", r.when.UTC().Format("2006-01-02 15:04 UTC"))
	row("machine", "%s; %s when the users started", r.machine.Summary(r.loadAtEnd), r.loadAtStart)
	row("go, code", "%s", r.machine.Code())
	row("store", "%s", store)
	row("command", "`go run ./bench/dashboard %s`", strings.Join(o.args, " "))
	row("data", "%d emails of one organization (live): %d sent through POST /emails/batch (sandbox: delivered, opened, clicked, bounced, complained, failed; tag campaign) in %s, then copied with recipients, timelines and tags in %d rounds in %s (%.0f emails/s), ANALYZE %s",
		g.Emails, o.seed, r.seedTook.Round(time.Millisecond), g.Rounds, g.Took.Round(time.Second), float64(g.Emails-int64(o.seed))/max(g.Took.Seconds(), 0.001), r.analyzeTook.Round(time.Millisecond))
	row("pages", "%d of %d: %s", len(o.pages), len(pages), pageNames(o.pages))
	row("load", "%d users, each signed in (a member's session) with a connection of its own, opening pages at random one after another: the page, then its platform calls in turn; %s warm-up, %s measured; first byte is the time to the answer's status line and headers, over loopback; a page's row is its slowest request", o.users, o.warmup, o.duration)
	for _, n := range r.notes {
		row("note", "%s", n)
	}
	fmt.Fprintf(w, "\n| request | count | p50 | p90 | **p99** | max | errors | largest answer | p99 ≤ 50 ms |\n|---|---|---|---|---|---|---|---|---|\n")
	labels := make([]string, 0, len(r.timings.byLabel))
	for l := range r.timings.byLabel {
		labels = append(labels, l)
	}
	for l := range r.timings.errors {
		if _, ok := r.timings.byLabel[l]; !ok {
			labels = append(labels, l)
		}
	}
	// Pages first, then the requests, each in name order.
	slices.SortFunc(labels, func(a, b string) int {
		pa, pb := strings.HasPrefix(a, "page: "), strings.HasPrefix(b, "page: ")
		if pa != pb {
			if pa {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	for _, l := range labels {
		s := latency.Summarize(r.timings.byLabel[l])
		ok := "met"
		if s.P99 > targetP99 || r.timings.errors[l] > 0 {
			ok = "**NOT met**"
		}
		size := "—"
		if b := r.timings.bytes[l]; b > 0 {
			size = fmt.Sprintf("%.1f KiB", float64(b)/1024)
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | **%s** | %s | %d | %s | %s |\n", l, s.Count, ms(s.P50), ms(s.P90), ms(s.P99), ms(s.Max),
			r.timings.errors[l], size, ok)
	}
	fmt.Fprintln(w)
}
