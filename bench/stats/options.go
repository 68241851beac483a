package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/carteiro/carteiro/bench/internal/database"
)

// options are the command line.
type options struct {
	store       string
	pgURL       string
	days        int
	hoursPerDay int
	clients     int
	warmup      time.Duration
	duration    time.Duration
	queries     []string
	keep        bool
	profile     string
	args        []string
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	o := options{args: args}
	var queries string
	fs := flag.NewFlagSet("stats", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.store, "store", "sqlite", "sqlite or postgres")
	fs.StringVar(&o.pgURL, "pg", database.DefaultPostgresURL(), "PostgreSQL server; a fresh schema is made in it and dropped at the end")
	fs.IntVar(&o.days, "days", 365, "days of history, ending yesterday")
	fs.IntVar(&o.hoursPerDay, "hours", 8, "hours with traffic per day (spread over the day)")
	fs.IntVar(&o.clients, "clients", 8, "concurrent clients per query")
	fs.DurationVar(&o.warmup, "warmup", time.Second, "time each query runs before it is measured")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "time each query is measured")
	fs.StringVar(&queries, "queries", strings.Join(defaultQueries, ","), "queries to run, of: "+strings.Join(knownQueries(), ", "))
	fs.StringVar(&o.profile, "cpuprofile", "", "write a CPU profile of the timed queries to this file")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary directory (database, log) and the PostgreSQL schema")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	var errs []error
	if o.store != "sqlite" && o.store != "postgres" {
		errs = append(errs, fmt.Errorf("-store: want sqlite or postgres, got %q", o.store))
	}
	if o.days < 1 || o.days > 3660 || o.hoursPerDay < 1 || o.hoursPerDay > 24 {
		errs = append(errs, errors.New("-days: want 1 to 3660; -hours: want 1 to 24"))
	}
	if o.clients < 1 || o.warmup < 0 || o.duration <= 0 || o.duration > 5*time.Minute {
		errs = append(errs, errors.New("-clients and -duration (at most 5m) must be positive, -warmup not negative"))
	}
	for _, q := range strings.Split(queries, ",") {
		if _, ok := queryShapes[q]; !ok {
			errs = append(errs, fmt.Errorf("-queries: unknown %q (known: %s)", q, strings.Join(knownQueries(), ", ")))
		}
		o.queries = append(o.queries, q)
	}
	return o, errors.Join(errs...)
}
