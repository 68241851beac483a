package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/carteiro/carteiro/bench/internal/database"
)

// options are the command line.
type options struct {
	store    string
	pgURL    string
	emails   int
	seed     int
	users    int
	warmup   time.Duration
	duration time.Duration
	keep     bool
	pages    []page // the pages the users open, of pages
	args     []string
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	o := options{args: args}
	fs := flag.NewFlagSet("dashboard", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.store, "store", "sqlite", "sqlite or postgres")
	fs.StringVar(&o.pgURL, "pg", database.DefaultPostgresURL(), "PostgreSQL server; a fresh schema is made in it and dropped at the end")
	fs.IntVar(&o.emails, "emails", 1_000_000, "emails of the organization (issue 26: 1,000,000)")
	fs.IntVar(&o.seed, "seed", 2000, "emails sent through the batch API before the copies")
	fs.IntVar(&o.users, "users", 10, "concurrent dashboard users (issue 26: 10)")
	fs.DurationVar(&o.warmup, "warmup", 3*time.Second, "time the users browse before the measured window")
	fs.DurationVar(&o.duration, "duration", 30*time.Second, "measured window")
	var only string
	fs.StringVar(&only, "pages", "", "comma-separated names of the pages the users open (default: all of "+pageNames(pages)+")")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary directory (database, log) and the PostgreSQL schema")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	var errs []error
	var err error
	if o.pages, err = choosePages(only); err != nil {
		errs = append(errs, err)
	}
	if o.store != "sqlite" && o.store != "postgres" {
		errs = append(errs, fmt.Errorf("-store: want sqlite or postgres, got %q", o.store))
	}
	if o.seed < 100 || o.seed%100 != 0 {
		errs = append(errs, fmt.Errorf("-seed: want a multiple of 100 (a batch), at least 100, got %d", o.seed))
	}
	if o.emails < o.seed {
		errs = append(errs, fmt.Errorf("-emails: want at least -seed (%d), got %d", o.seed, o.emails))
	}
	if o.users < 1 || o.warmup < 0 || o.duration <= 0 {
		errs = append(errs, errors.New("-users and -duration must be positive, -warmup not negative"))
	}
	return o, errors.Join(errs...)
}

// pageNames lists the names of ps.
func pageNames(ps []page) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// choosePages returns the pages named in list, or all of them for "".
func choosePages(list string) ([]page, error) {
	if list == "" {
		return pages, nil
	}
	var chosen []page
	for _, name := range strings.Split(list, ",") {
		i := slices.IndexFunc(pages, func(p page) bool { return p.Name == strings.TrimSpace(name) })
		if i < 0 {
			return nil, fmt.Errorf("-pages: no page %q (pages: %s)", name, pageNames(pages))
		}
		chosen = append(chosen, pages[i])
	}
	return chosen, nil
}
