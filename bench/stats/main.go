package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/bench/internal/apiclient"
	"github.com/carteiro/carteiro/bench/internal/cli"
	"github.com/carteiro/carteiro/bench/internal/machine"
	"github.com/carteiro/carteiro/bench/internal/service"
)

func main() { cli.Main("stats", parseOptions, run) }

// run starts the service on a fresh database, writes the history, checks
// and times each query, stops everything and prints the report on stdout
// (progress goes to stderr).
func run(ctx context.Context, o options, stdout, stderr io.Writer) (err error) {
	progress := cli.Progress(stderr)
	rep := &report{opts: o, machine: machine.Describe(), when: time.Now()}
	dir, removeDir, err := cli.WorkDir("carteiro-bench-stats-", o.keep, progress)
	if err != nil {
		return err
	}
	defer removeDir()
	svc, err := service.StartFresh(ctx, dir, o.store, o.pgURL, o.keep, nil, 0)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, svc.Close()) }()
	progress("carteiro (%s) at %s, log %s", o.store, svc.URL, svc.LogPath)
	api := apiclient.New(svc.URL, o.clients+2, 30*time.Second)
	domainID, err := api.CreateDomain(ctx, svc.LiveKey, "stats.bench.example")
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
	stopProfile, err := cli.StartCPUProfile(o.profile)
	if err != nil {
		return err
	}
	defer stopProfile()
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
	rep.loadAtEnd = machine.LoadAverage()
	for _, n := range svc.Finish(ctx) {
		rep.note("%s", n)
	}
	rep.write(stdout)
	return nil
}
