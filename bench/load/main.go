package main

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/carteiro/carteiro/bench/internal/child"
	"github.com/carteiro/carteiro/bench/internal/cli"
	"github.com/carteiro/carteiro/bench/internal/database"
	"github.com/carteiro/carteiro/bench/internal/machine"
)

func main() { cli.Main("load", parseOptions, run) }

// run sets up the sink, the DNS server, a fresh database and the server,
// runs the scenario, stops everything and prints the report on stdout
// (progress goes to stderr).
func run(ctx context.Context, o options, stdout, stderr io.Writer) (err error) {
	progress := cli.Progress(stderr)
	dir, removeDir, err := cli.WorkDir("carteiro-bench-", o.keep, progress)
	if err != nil {
		return err
	}
	defer removeDir()
	bin := o.binary
	if bin == "" {
		progress("building ./cmd/carteiro")
		if bin, err = child.Build(ctx, dir, "load"); err != nil {
			return err
		}
	}
	if o.scenario == "direct" {
		return runDirect(ctx, o, bin, dir, stdout, progress)
	}
	sk, dns, stopSinkAndDNS, err := startSinkAndDNS(nil)
	if err != nil {
		return err
	}
	defer stopSinkAndDNS()
	switch o.scenario {
	case "backup":
		return runBackup(ctx, o, bin, dir, sk, dns, stdout, progress)
	case "purge":
		return runPurge(ctx, o, bin, dir, sk, dns, stdout, progress)
	}
	db, err := database.New(ctx, o.store, dir, database.DefaultPostgresURL(), o.pgParams)
	if err != nil {
		return err
	}
	if !o.keep {
		defer func() {
			if derr := db.Drop(); derr != nil {
				err = errors.Join(err, derr)
			}
		}()
	}

	progress("starting carteiro (%s, sink %s, dns %s)", o.store, sk.Addr(), dns.Addr())
	submissionAddr := ""
	if o.scenario == "smtp" {
		if submissionAddr, err = freeLoopbackAddr(); err != nil {
			return err
		}
	}
	srv, err := child.Start(bin, dir, o.role, serverEnv(db.URL, sk.Addr(), dns.Addr(), submissionAddr), "")
	if err != nil {
		return err
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = srv.Stop()
		}
	}()
	progress("carteiro pid %d at %s, log %s", srv.Pid(), srv.URL, srv.LogPath)
	api := newAPIClient(srv.URL, srv.LiveKey, o.clients)
	if _, err := verifyDomain(ctx, api, dns); err != nil {
		return err
	}
	progress("domain %s verified", sendingDomain)

	rep := &report{opts: o, machine: describeMachine(bin), when: time.Now()}
	rss := machine.StartRSSSampler(srv.Pid(), 250*time.Millisecond)
	if o.scenario == "e2e" {
		progress("sending %d emails in batches of %d with %d clients, then waiting for the sink", o.emails, o.batch, o.clients)
		cpu0, err0 := machine.ProcessCPU(srv.Pid())
		self0, began := machine.SelfCPU(), time.Now()
		all0, errAll0 := machine.ReadCPU()
		res := runE2E(ctx, o.clients, o.emails, o.batch, o.timeout, api, sk)
		cpu1, err1 := machine.ProcessCPU(srv.Pid())
		all1, errAll1 := machine.ReadCPU()
		describeE2E(rep, o, res, sk.Unsigned())
		if err0 == nil && err1 == nil {
			wall := time.Since(began)
			rep.row("CPU over the run: server / load generator", "%s / %s of one core (the machine has %s)",
				percentOfCore(cpu1-cpu0, wall), percentOfCore(machine.SelfCPU()-self0, wall), rep.machine.CPUs)
		}
		if errAll0 == nil && errAll1 == nil {
			rep.row("whole machine over the run (all CPUs, database included)", "%s", all1.Since(all0))
		}
	} else if o.scenario == "smtp" {
		// The accept run first, on the same server, is the yardstick of
		// issue 27's targets; its block is printed before smtp's.
		baseline := o
		baseline.scenario = "accept"
		progress("accept (baseline): %d clients, %s warm-up then %s measured", o.clients, o.warmup, o.duration)
		accept := measureTimed(ctx, baseline, api, "", srv.Pid(), sk)
		acceptRep := &report{opts: baseline, machine: rep.machine, when: time.Now()}
		describeTimed(acceptRep, baseline, accept)
		acceptRep.write(stdout)
		rep.when = time.Now()
		progress("smtp: %d sessions at %s, %s warm-up then %s measured", o.clients, submissionAddr, o.warmup, o.duration)
		describeSMTP(rep, o, measureTimed(ctx, o, api, submissionAddr, srv.Pid(), sk), accept)
	} else {
		progress("%s: %d clients, %s warm-up then %s measured", o.scenario, o.clients, o.warmup, o.duration)
		describeTimed(rep, o, measureTimed(ctx, o, api, "", srv.Pid(), sk))
	}
	_, hwm, hwmErr := machine.MemoryStatus(srv.Pid())
	peak, rssErr := rss.Stop()
	describeMemory(rep, peak, hwm, errors.Join(hwmErr, rssErr))

	progress("stopping carteiro (SIGTERM)")
	stopped = true
	if serr := srv.Stop(); serr != nil {
		rep.note("The server did not stop cleanly on SIGTERM: %v (see its log).", serr)
	}
	if ctx.Err() != nil {
		rep.note("Interrupted before the end: these numbers cover only part of the run.")
	}
	rep.write(stdout)
	return nil
}
