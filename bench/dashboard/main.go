package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/carteiro/carteiro/bench/internal/apiclient"
	"github.com/carteiro/carteiro/bench/internal/cli"
	"github.com/carteiro/carteiro/bench/internal/machine"
	"github.com/carteiro/carteiro/bench/internal/service"
)

func main() { cli.Main("dashboard", parseOptions, run) }

// run seeds a fresh database, signs the users in, has them browse, stops
// everything and prints the report on stdout (progress goes to stderr).
func run(ctx context.Context, o options, stdout, stderr io.Writer) (err error) {
	progress := cli.Progress(stderr)
	rep := &report{opts: o, machine: machine.Describe(), when: time.Now()}
	dir, removeDir, err := cli.WorkDir("carteiro-bench-dashboard-", o.keep, progress)
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
	orgID := svc.BootstrapOrg.ID
	api := apiclient.New(svc.URL, 4, time.Minute)
	if _, err := api.CreateDomain(ctx, svc.LiveKey, "dashboard.bench.example"); err != nil {
		return err
	}

	began := time.Now()
	if err := sendSeed(ctx, api, svc.LiveKey, o.seed); err != nil {
		return err
	}
	sqlDB, err := openSQL(o.store, svc.DatabaseURL())
	if err != nil {
		return err
	}
	defer sqlDB.Close()
	if err := waitSettled(ctx, sqlDB, orgID); err != nil {
		return err
	}
	rep.seedTook = time.Since(began)
	progress("%d emails sent and settled in %s; growing to %d", o.seed, rep.seedTook.Round(time.Millisecond), o.emails)
	if rep.growth, err = grow(ctx, sqlDB, o.store, orgID, int64(o.emails), progress); err != nil {
		return err
	}
	began = time.Now()
	if err := analyze(ctx, sqlDB); err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	rep.analyzeTook = time.Since(began)
	progress("%d emails in %s (%d rounds), ANALYZE %s", rep.growth.Emails, rep.growth.Took.Round(time.Second), rep.growth.Rounds, rep.analyzeTook.Round(time.Millisecond))

	w := &world{Recipient: fmt.Sprintf("+u%d@", o.seed/2)}
	if w.EmailIDs, err = sampleEmailIDs(ctx, sqlDB, orgID, 500); err != nil {
		return err
	}
	var first struct {
		NextCursor string `json:"nextCursor"`
	}
	if err := api.Call(ctx, http.MethodGet, "/v1/product/emails?limit=50", svc.LiveKey, nil, &first); err != nil {
		return err
	}
	w.NextCursor = first.NextCursor
	sessions, err := signIn(ctx, svc.Server, orgID, o.users)
	if err != nil {
		return err
	}
	progress("%d users browsing: %s warm-up, then %s measured", o.users, o.warmup, o.duration)
	rep.loadAtStart = machine.LoadAverage()
	rep.timings = browse(ctx, svc.URL, sessions, w, o.pages, o.warmup, o.duration)
	rep.loadAtEnd = machine.LoadAverage()
	for _, n := range svc.Finish(ctx) {
		rep.note("%s", n)
	}
	rep.write(stdout)
	return nil
}
