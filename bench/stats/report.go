package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/carteiro/carteiro/bench/internal/latency"
	"github.com/carteiro/carteiro/bench/internal/machine"
)

// targetP99 is the target for a year of daily buckets.
const targetP99 = 20 * time.Millisecond

// report gathers one run's figures and prints them as Markdown.
type report struct {
	opts      options
	machine   machine.Description
	when      time.Time
	history   history
	results   []result
	loadAtEnd string
	notes     []string
}

func (r *report) note(format string, args ...any) {
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

func (r *report) write(w io.Writer) {
	o, h := r.opts, r.history
	store := map[string]string{"sqlite": "SQLite (WAL, synchronous=FULL) on the local disk", "postgres": "PostgreSQL on 127.0.0.1 (fresh schema)"}[o.store]
	fmt.Fprintf(w, "### GET /stats: %s, %d days of history\n\n| | |\n|---|---|\n", o.store, o.days)
	row := func(k, format string, args ...any) { fmt.Fprintf(w, "| %s | %s |\n", k, fmt.Sprintf(format, args...)) }
	row("when", "%s", r.when.UTC().Format("2006-01-02 15:04 UTC"))
	row("machine", "%s", r.machine.Summary(r.loadAtEnd))
	row("go, code", "%s", r.machine.Code())
	row("store", "%s", store)
	row("command", "`go run ./bench/stats %s`", strings.Join(o.args, " "))
	row("history", "%s to %s, %d hours a day, 1 organization (live), 1 domain, tag `%s:%s`: %d hourly keys (all emails, tag name, name:value; each also counted in its day) from %d AddStats calls, written in %s (one transaction per day)",
		h.Start.Format(time.DateOnly), h.End.AddDate(0, 0, -1).Format(time.DateOnly), o.hoursPerDay, seedTagName, seedTagValue,
		h.Rows, h.Calls, h.Took.Round(time.Millisecond))
	row("load", "%d concurrent clients over loopback HTTP (keep-alive), %s warm-up then %s per query; every answer checked once first (buckets, totals), alone: its time is the first answer column, the one read of the settled days from the database, which later answers read from the service's memory; CPU/request is this process's CPU time (service and clients; not PostgreSQL's) over requests; machine busy is the share of all cores busy (this process, PostgreSQL, neighbours)",
		o.clients, o.warmup, o.duration)
	fmt.Fprintf(w, "\n| query (whole range) | buckets | answer | first answer | requests/s | p50 | p90 | **p99** | max | errors | CPU/request | machine busy | p99 ≤ 20 ms |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, res := range r.results {
		p99 := latency.Percentile(res.Latencies, 99)
		ok := "NOT met"
		if len(res.Latencies) > 0 && p99 <= targetP99 && res.Errors == 0 {
			ok = "met"
		}
		perRequest := time.Duration(0)
		if res.Requests > 0 {
			perRequest = res.CPU / time.Duration(res.Requests)
		}
		busy := "?"
		if res.Busy >= 0 {
			busy = fmt.Sprintf("%.0f%%", 100*res.Busy)
		}
		fmt.Fprintf(w, "| %s | %d | %.1f KiB | %s | %.0f | %s | %s | **%s** | %s | %d | %s | %s | %s |\n", res.Name, res.Buckets, float64(res.Bytes)/1024,
			ms(res.First), float64(res.Requests)/res.Seconds, ms(latency.Percentile(res.Latencies, 50)), ms(latency.Percentile(res.Latencies, 90)), ms(p99),
			ms(latency.Percentile(res.Latencies, 100)), res.Errors, ms(perRequest), busy, ok)
	}
	for _, res := range r.results {
		if res.FirstErr != nil {
			r.note("%s: first error: %v", res.Name, res.FirstErr)
		}
	}
	for _, n := range r.notes {
		fmt.Fprintf(w, "\nNote: %s\n", n)
	}
	fmt.Fprintln(w)
}
