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
	"syscall"
	"time"
)

func main() {
	o, err := parseOptions(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "webhooks:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "webhooks:", err)
		os.Exit(1)
	}
}

// rig is what a measurement drives: the service, the receiver, an API
// client and the webhooks registered.
type rig struct {
	svc      *service
	rcv      *receiver
	api      *apiClient
	hookIDs  []string
	progress func(string, ...any)
}

// run sets up the receiver, a fresh database, the service and the
// webhooks, runs the measurement of o.mode, stops everything and prints
// the report on stdout (progress goes to stderr).
func run(ctx context.Context, o options, stdout, stderr io.Writer) (err error) {
	progress := func(format string, args ...any) {
		fmt.Fprintf(stderr, "%s  "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
	rep := &report{opts: o, machine: describeMachine(), when: time.Now()}
	dir, err := os.MkdirTemp("", "carteiro-bench-webhooks-")
	if err != nil {
		return err
	}
	if o.keep {
		progress("keeping %s", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	caPath := filepath.Join(dir, "receiver-ca.pem")
	cert, err := receiverCert(caPath)
	if err != nil {
		return err
	}
	rcv := startReceiver(cert, o.http2)
	defer rcv.Close()

	db, err := newDatabase(ctx, o.store, dir, o.pgURL)
	if err != nil {
		return err
	}
	if !o.keep {
		defer func() { err = errors.Join(err, db.drop()) }()
	}
	svc, err := startService(ctx, db.URL, filepath.Join(dir, "carteiro.log"), map[string]string{
		"CARTEIRO_WEBHOOK_ALLOW_PRIVATE": "true", "CARTEIRO_WEBHOOK_CA_FILE": caPath,
	}, o.poll)
	if err != nil {
		return err
	}
	stopped := false
	defer func() {
		if !stopped {
			err = errors.Join(err, svc.stop())
		}
	}()
	progress("carteiro (%s) at %s, receiver %s, log %s", o.store, svc.URL, rcv.URL(), svc.LogPath)

	api := newAPIClient(svc.URL, o.clients+4)
	hookIDs, err := createWebhooks(ctx, api, svc.LiveKey, rcv.URL(), o.hooks)
	if err != nil {
		return err
	}
	r := &rig{svc: svc, rcv: rcv, api: api, hookIDs: hookIDs, progress: progress}
	if o.mode == "capacity" {
		err = measureCapacity(ctx, o, r, rep)
	} else {
		err = measureStream(ctx, o, r, rep)
	}
	if err != nil && ctx.Err() == nil {
		return err
	}
	rep.loadAtEnd = loadAverage()

	progress("stopping carteiro")
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
