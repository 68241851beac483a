package main

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"time"

	"github.com/carteiro/carteiro/bench/internal/apiclient"
	"github.com/carteiro/carteiro/bench/internal/cli"
	"github.com/carteiro/carteiro/bench/internal/machine"
	"github.com/carteiro/carteiro/bench/internal/service"
)

func main() { cli.Main("webhooks", parseOptions, run) }

// rig is what a measurement drives: the service, the receiver, an API
// client and the webhooks registered.
type rig struct {
	svc      *service.Fresh
	rcv      *receiver
	api      *apiclient.Client
	hookIDs  []string
	progress func(string, ...any)
}

// run sets up the receiver, a fresh database, the service and the
// webhooks, runs the measurement of o.mode, stops everything and prints
// the report on stdout (progress goes to stderr).
func run(ctx context.Context, o options, stdout, stderr io.Writer) (err error) {
	progress := cli.Progress(stderr)
	rep := &report{opts: o, machine: machine.Describe(), when: time.Now()}
	dir, removeDir, err := cli.WorkDir("carteiro-bench-webhooks-", o.keep, progress)
	if err != nil {
		return err
	}
	defer removeDir()
	caPath := filepath.Join(dir, "receiver-ca.pem")
	cert, err := receiverCert(caPath)
	if err != nil {
		return err
	}
	rcv := startReceiver(cert, o.http2)
	defer rcv.Close()

	svc, err := service.StartFresh(ctx, dir, o.store, o.pgURL, o.keep, map[string]string{
		"CARTEIRO_WEBHOOK_ALLOW_PRIVATE": "true", "CARTEIRO_WEBHOOK_CA_FILE": caPath,
	}, o.poll)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, svc.Close()) }()
	progress("carteiro (%s) at %s, receiver %s, log %s", o.store, svc.URL, rcv.URL(), svc.LogPath)

	api := apiclient.New(svc.URL, o.clients+4, 30*time.Second)
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
	rep.loadAtEnd = machine.LoadAverage()

	progress("stopping carteiro")
	for _, n := range svc.Finish(ctx) {
		rep.note("%s", n)
	}
	rep.write(stdout)
	return nil
}
