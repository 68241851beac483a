package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/carteiro/carteiro/bench/internal/database"
)

// options are the command line.
type options struct {
	mode     string
	emails   int
	store    string
	pgURL    string
	hooks    int
	outcome  string
	rate     float64
	batch    int
	clients  int
	warmup   time.Duration
	duration time.Duration
	drain    time.Duration
	poll     time.Duration
	http2    bool
	profile  string
	keep     bool
	args     []string
}

// eventsPerEmail is how many webhook events one sandbox email of each
// outcome produces (D30): the local part of the recipient picks it.
var eventsPerEmail = map[string]int{
	"anyone":  2, // sent, delivered
	"opened":  3, // sent, delivered, opened
	"clicked": 4, // sent, delivered, opened, clicked
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	o := options{args: args}
	fs := flag.NewFlagSet("webhooks", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.mode, "mode", "stream", "stream: send at -rate and measure deliveries/s and latency; capacity: queue -emails emails' deliveries with the webhooks paused, then resume them and time the delivery alone")
	fs.IntVar(&o.emails, "emails", 5000, "capacity mode: emails to send")
	fs.StringVar(&o.store, "store", "sqlite", "sqlite or postgres")
	fs.StringVar(&o.pgURL, "pg", database.DefaultPostgresURL(), "PostgreSQL server; a fresh schema is made in it and dropped at the end")
	fs.IntVar(&o.hooks, "hooks", 1, "webhooks subscribed to every event, each its own path on the receiver")
	fs.StringVar(&o.outcome, "outcome", "clicked", "sandbox outcome of every email: anyone (2 events), opened (3) or clicked (4)")
	fs.Float64Var(&o.rate, "rate", 2200, "offered deliveries per second, by default 10% above the 2,000/s target so that keeping up shows as at least 2,000/s (emails/s = rate / events per email / hooks); 0 sends as fast as the clients can")
	fs.IntVar(&o.batch, "batch", 20, "emails per POST /emails/batch")
	fs.IntVar(&o.clients, "clients", 8, "concurrent API clients sending batches")
	fs.DurationVar(&o.warmup, "warmup", 5*time.Second, "sending time before the measured window")
	fs.DurationVar(&o.duration, "duration", 20*time.Second, "measured window")
	fs.DurationVar(&o.drain, "drain", 2*time.Minute, "longest wait for the backlog once sending stops")
	fs.DurationVar(&o.poll, "poll", 0, "queue poll interval; 0 keeps production's default")
	fs.BoolVar(&o.http2, "http2", false, "the receiver speaks HTTP/2 (else HTTP/1.1 only)")
	fs.StringVar(&o.profile, "cpuprofile", "", "write a CPU profile of the measured window to this file")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary directory (database, log) and the PostgreSQL schema")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	var errs []error
	if o.mode != "stream" && o.mode != "capacity" {
		errs = append(errs, fmt.Errorf("-mode: want stream or capacity, got %q", o.mode))
	}
	if o.emails < 1 || o.emails > 100_000 {
		errs = append(errs, fmt.Errorf("-emails: want 1 to 100000, got %d", o.emails))
	}
	if o.store != "sqlite" && o.store != "postgres" {
		errs = append(errs, fmt.Errorf("-store: want sqlite or postgres, got %q", o.store))
	}
	if _, ok := eventsPerEmail[o.outcome]; !ok {
		errs = append(errs, fmt.Errorf("-outcome: want anyone, opened or clicked, got %q", o.outcome))
	}
	if o.hooks < 1 || o.hooks > 100 {
		errs = append(errs, fmt.Errorf("-hooks: want 1 to 100, got %d", o.hooks))
	}
	if o.batch < 1 || o.batch > 100 {
		errs = append(errs, fmt.Errorf("-batch: want 1 to 100 (the API's limit), got %d", o.batch))
	}
	if o.clients < 1 || o.rate < 0 || o.warmup < 0 || o.duration <= 0 || o.drain <= 0 {
		errs = append(errs, errors.New("-clients, -duration and -drain must be positive, -rate and -warmup not negative"))
	}
	if o.duration+o.warmup > 10*time.Minute {
		errs = append(errs, errors.New("-warmup plus -duration: at most 10 minutes"))
	}
	return o, errors.Join(errs...)
}

// perEmail is the deliveries one accepted email produces.
func (o options) perEmail() int { return eventsPerEmail[o.outcome] * o.hooks }

// emailRate is the emails per second the generator sends (0: unpaced).
func (o options) emailRate() float64 { return o.rate / float64(o.perEmail()) }
