package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// report is one run's result block, printed as Markdown for
// docs/benchmarks.md.
type report struct {
	opts    options
	machine machineInfo
	when    time.Time
	rows    [][2]string
	targets []target
	notes   []string
}

// target is one goal of the "Sending" issue and whether the run met it.
type target struct {
	goal string
	got  string
	met  bool
}

func (r *report) row(name, format string, args ...any) {
	r.rows = append(r.rows, [2]string{name, fmt.Sprintf(format, args...)})
}

func (r *report) check(goal, got string, met bool) {
	r.targets = append(r.targets, target{goal, got, met})
}

func (r *report) note(format string, args ...any) {
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
}

// write prints the block.
func (r *report) write(w io.Writer) {
	fmt.Fprintf(w, "\n### %s on %s, %s\n\n", r.opts.scenario, r.opts.store, r.when.UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(w, "`%s`\n\n", r.opts.commandLine())
	m := r.machine
	fmt.Fprintf(w, "Machine: %s CPUs (nproc), %s, %.1f GiB RAM; %s; store %s; source %s.\n\n", m.CPUs, m.CPUModel, m.MemGiB, m.Go, r.opts.store, m.Tree)
	fmt.Fprintln(w, "| measure | value |")
	fmt.Fprintln(w, "|---|---|")
	for _, row := range r.rows {
		fmt.Fprintf(w, "| %s | %s |\n", row[0], row[1])
	}
	if len(r.targets) > 0 {
		fmt.Fprintln(w, "\n| target | measured | |")
		fmt.Fprintln(w, "|---|---|---|")
		for _, t := range r.targets {
			verdict := "met"
			if !t.met {
				verdict = "**not met**"
			}
			fmt.Fprintf(w, "| %s | %s | %s |\n", t.goal, t.got, verdict)
		}
	}
	for _, n := range r.notes {
		fmt.Fprintf(w, "\n%s\n", n)
	}
	fmt.Fprintln(w)
}

// thousands formats n with comma separators: 12345 -> "12,345".
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// perSecond formats a rate rounded to a whole number per second.
func perSecond(rate float64) string { return thousands(int64(rate+0.5)) + "/s" }

// millis formats a latency in milliseconds with one decimal.
func millis(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

// megabytes formats bytes in MB of 10^6 bytes, the unit of the targets.
func megabytes(b int64) string { return fmt.Sprintf("%.0f MB", float64(b)/1e6) }

// statusCounts formats answers by status: "202: 1,000; 500: 3".
func statusCounts(m map[string]int64) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+": "+thousands(m[k]))
	}
	return strings.Join(parts, "; ")
}
