package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	o, err := parseOptions(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

// run sets up the sink, the DNS server, a fresh database and the server,
// runs the scenario, stops everything and prints the report on stdout
// (progress goes to stderr).
func run(ctx context.Context, o options, stdout, stderr io.Writer) (err error) {
	progress := func(format string, args ...any) {
		fmt.Fprintf(stderr, "%s  "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
	dir, err := os.MkdirTemp("", "carteiro-bench-")
	if err != nil {
		return err
	}
	if o.keep {
		progress("keeping %s", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	bin := o.binary
	if bin == "" {
		progress("building ./cmd/carteiro")
		if bin, err = buildBinary(ctx, dir); err != nil {
			return err
		}
	}
	if o.scenario == "direct" {
		return runDirect(ctx, o, bin, dir, stdout, progress)
	}
	sk, dns, stopSinkAndDNS, err := startSinkAndDNS()
	if err != nil {
		return err
	}
	defer stopSinkAndDNS()
	db, err := newDatabase(ctx, o.store, dir, o.pgParams)
	if err != nil {
		return err
	}
	if !o.keep {
		defer func() {
			if derr := db.drop(); derr != nil {
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
	srv, err := startCarteiro(bin, dir, o.role, serverEnv(db.URL, sk.Addr(), dns.Addr(), submissionAddr))
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
	if err := verifyDomain(ctx, api, dns); err != nil {
		return err
	}
	progress("domain %s verified", sendingDomain)

	rep := &report{opts: o, machine: describeMachine(bin), when: time.Now()}
	rss := startRSSSampler(srv.Pid())
	if o.scenario == "e2e" {
		progress("sending %d emails in batches of %d with %d clients, then waiting for the sink", o.emails, o.batch, o.clients)
		cpu0, err0 := cpuTime(srv.Pid())
		self0, began := selfCPUTime(), time.Now()
		all0, errAll0 := readMachineCPU()
		res := runE2E(ctx, o.clients, o.emails, o.batch, o.timeout, api, sk)
		cpu1, err1 := cpuTime(srv.Pid())
		all1, errAll1 := readMachineCPU()
		describeE2E(rep, o, res, sk.Unsigned())
		if err0 == nil && err1 == nil {
			wall := time.Since(began)
			rep.row("CPU over the run: server / load generator", "%s / %s of one core (the machine has %s)",
				percentOfCore(cpu1-cpu0, wall), percentOfCore(selfCPUTime()-self0, wall), rep.machine.CPUs)
		}
		if errAll0 == nil && errAll1 == nil {
			rep.row("whole machine over the run (all CPUs, database included)", "%s", all1.since(all0))
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
	_, hwm, hwmErr := memoryStatus(srv.Pid())
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
