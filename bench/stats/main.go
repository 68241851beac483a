package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/carteiro/carteiro"
)

func main() {
	o, err := parseOptions(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "stats:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "stats:", err)
		os.Exit(1)
	}
}

// startProfile writes a CPU profile of this process (service and clients
// together) to path until the returned function is called.
func startProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// run starts the service on a fresh database, writes the history, checks
// and times each query, stops everything and prints the report on stdout
// (progress goes to stderr).
func run(ctx context.Context, o options, stdout, stderr io.Writer) (err error) {
	progress := func(format string, args ...any) {
		fmt.Fprintf(stderr, "%s  "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
	rep := &report{opts: o, machine: describeMachine(), when: time.Now()}
	dir, err := os.MkdirTemp("", "carteiro-bench-stats-")
	if err != nil {
		return err
	}
	if o.keep {
		progress("keeping %s", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	db, err := newDatabase(ctx, o.store, dir, o.pgURL)
	if err != nil {
		return err
	}
	if !o.keep {
		defer func() { err = errors.Join(err, db.drop()) }()
	}
	svc, err := startService(ctx, db.URL, filepath.Join(dir, "carteiro.log"), nil, 0)
	if err != nil {
		return err
	}
	stopped := false
	defer func() {
		if !stopped {
			err = errors.Join(err, svc.stop())
		}
	}()
	progress("carteiro (%s) at %s, log %s", o.store, svc.URL, svc.LogPath)
	api := newAPIClient(svc.URL, o.clients+2)
	domainID, err := api.createDomain(ctx, svc.LiveKey, "stats.bench.example")
	if err != nil {
		return err
	}
	today := time.Now().UTC().Truncate(24 * time.Hour)
	progress("writing %d days × %d hours of counters through the store", o.days, o.hoursPerDay)
	rep.history, err = seed(ctx, svc.Store, svc.BootstrapOrg.ID, string(carteiro.ModeLive), domainID, o.days, o.hoursPerDay, today)
	if err != nil {
		return err
	}
	progress("wrote %d hourly keys (%d AddStats calls) in %s", rep.history.Rows, rep.history.Calls, rep.history.Took.Round(time.Millisecond))
	if o.profile != "" {
		stopProfile, err := startProfile(o.profile)
		if err != nil {
			return err
		}
		defer stopProfile()
	}
	for _, name := range o.queries {
		q := queryShapes[name]
		size, first, err := check(ctx, api, svc.LiveKey, rep.history, q)
		if err != nil {
			return fmt.Errorf("query %s answers wrongly: %w", name, err)
		}
		progress("%s: answer checked (%d buckets, %d bytes); %d clients for %s + %s", name, q.buckets(rep.history), size, o.clients, o.warmup, o.duration)
		res := measure(ctx, api, svc.LiveKey, q.path(rep.history), o.clients, o.warmup, o.duration)
		res.Name, res.Buckets, res.Bytes, res.First = name, q.buckets(rep.history), size, first
		rep.results = append(rep.results, res)
		if ctx.Err() != nil {
			break
		}
	}
	rep.loadAtEnd = loadAverage()
	stopped = true
	if serr := svc.stop(); serr != nil {
		rep.note("The service did not stop cleanly: %v.", serr)
	}
	if ctx.Err() != nil {
		rep.note("Interrupted before the end: these figures cover only part of the run.")
	}
	rep.write(stdout)
	return nil
}
