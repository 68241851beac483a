package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/carteiro/carteiro/bench/internal/child"
	"github.com/carteiro/carteiro/bench/internal/latency"
	"github.com/carteiro/carteiro/internal/testutil"
)

// seedInfo is what a later run needs of a seed database the benchmark made
// (D79's backup scenario): the live key its first start printed and the
// sending domain's DNS records, kept beside it as SEED.json.
type seedInfo struct {
	LiveKey string        `json:"liveKey"`
	Domain  createdDomain `json:"domain"`
	Emails  int64         `json:"emails"`
}

// seedEmails is how many emails a seed is started with through the API
// (delivered, with their timelines) before growSQLite copies them.
const seedEmails = 1000

// loadOrMakeSeed returns the seed at path, making it first when missing:
// a fresh server accepts and delivers seedEmails through the API, stops,
// and the file is grown to size bytes.
func loadOrMakeSeed(ctx context.Context, o options, bin, dir string, sk *sink, dns *testutil.DNSServer, progress func(string, ...any)) (seedInfo, error) {
	var info seedInfo
	meta := o.seed + ".json"
	if b, err := os.ReadFile(meta); err == nil {
		if err := json.Unmarshal(b, &info); err != nil {
			return info, fmt.Errorf("%s: %w", meta, err)
		}
		progress("reusing the seed %s (%s emails)", o.seed, thousands(info.Emails))
		return info, nil
	}
	if _, err := os.Stat(o.seed); err == nil {
		return info, fmt.Errorf("%s exists without %s: remove it to make a new seed", o.seed, meta)
	}
	progress("making the seed %s: a fresh server, %d emails through the API, then grown to %d MB", o.seed, seedEmails, o.seedSize>>20)
	srv, err := child.Start(bin, dir, "all", serverEnv("sqlite:"+o.seed, sk.Addr(), dns.Addr(), ""), "")
	if err != nil {
		return info, err
	}
	api := newAPIClient(srv.URL, srv.LiveKey, o.clients)
	info.LiveKey = srv.LiveKey
	if info.Domain, err = verifyDomain(ctx, api, dns); err != nil {
		_ = srv.Stop()
		return info, err
	}
	delivered := sk.Count()
	for first := int64(0); first < seedEmails; first += maxBatch {
		if out := postBatch(ctx, api, first, maxBatch); out.accepted != maxBatch {
			_ = srv.Stop()
			return info, fmt.Errorf("seed batch: %d accepted, status %s", out.accepted, out.status)
		}
	}
	for deadline := time.Now().Add(2 * time.Minute); sk.Count()-delivered < seedEmails; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = srv.Stop()
			return info, errors.New("seed emails not delivered within 2 minutes")
		}
	}
	time.Sleep(2 * time.Second) // the last deliveries' events
	if err := srv.Stop(); err != nil {
		return info, err
	}
	if info.Emails, err = growSQLite(ctx, o.seed, o.seedSize, progress); err != nil {
		return info, err
	}
	b, _ := json.Marshal(info)
	return info, os.WriteFile(meta, b, 0o600)
}

// runBackup is the backup scenario (D79, issue 31): on a copy of the seed,
// the same accept load runs three times on one server: alone for
// -duration, while `carteiro backup` copies the database, and while the
// VACUUM INTO the command used before copies it (run from this process
// with the same SQLite library, to compare in one run). Each copy's time is
// set against `cp` of the same file.
func runBackup(ctx context.Context, o options, bin, dir string, sk *sink, dns *testutil.DNSServer, stdout io.Writer, progress func(string, ...any)) error {
	info, err := loadOrMakeSeed(ctx, o, bin, dir, sk, dns, progress)
	if err != nil {
		return err
	}
	live := filepath.Join(dir, "bench.db")
	progress("copying the seed to %s", live)
	if _, err := timedCommand(ctx, "cp", o.seed, live); err != nil {
		return err
	}
	size, _ := fileSize(live)
	cpTook, err := timedCommand(ctx, "cp", live, live+".cp")
	if err != nil {
		return err
	}
	syncTook, err := timedCommand(ctx, "sync", live+".cp")
	if err != nil {
		return err
	}
	_ = os.Remove(live + ".cp")
	progress("cp of %d MB: %s, then sync %s", size>>20, cpTook.Round(time.Millisecond), syncTook.Round(time.Millisecond))

	env := serverEnv("sqlite:"+live, sk.Addr(), dns.Addr(), "")
	srv, err := child.Start(bin, dir, "all", env, info.LiveKey)
	if err != nil {
		return err
	}
	defer srv.Stop()
	if err := info.Domain.publish(dns); err != nil {
		return err
	}
	api := newAPIClient(srv.URL, srv.LiveKey, o.clients)
	rep := &report{opts: o, machine: describeMachine(bin), when: time.Now()}
	send := singleSender(api)

	progress("accept alone: %d clients for %s", o.clients, o.duration)
	alone := runDuring(ctx, o.clients, o.warmup, send, sleepAction(o.duration))

	newCopy := filepath.Join(dir, "backup.db")
	var before int64
	progress("accept while carteiro backup runs")
	withBackup := runDuring(ctx, o.clients, o.warmup, send, func(ctx context.Context) error {
		if before, err = countEmails(ctx, live); err != nil {
			return err
		}
		cmd := exec.CommandContext(ctx, bin, "backup", "--to", newCopy)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("carteiro backup: %w: %s", err, out)
		}
		return nil
	})
	if withBackup.err != nil {
		return withBackup.err
	}
	oldCopy := filepath.Join(dir, "vacuum.db")
	progress("accept while VACUUM INTO runs")
	withVacuum := runDuring(ctx, o.clients, o.warmup, send, func(ctx context.Context) error { return vacuumInto(ctx, live, oldCopy) })
	_ = os.Remove(oldCopy)
	if withVacuum.err != nil {
		return withVacuum.err
	}
	progress("stopping carteiro; checking the copy")
	if err := srv.Stop(); err != nil {
		rep.note("The server did not stop cleanly: %v", err)
	}
	checkErr := integrityCheck(ctx, newCopy)
	inCopy, countErr := countEmails(ctx, newCopy)

	rep.row("database", "%d MB (%s emails in the seed, grown as bench/load/grow.go does)", size>>20, thousands(info.Emails))
	rep.row("`cp` of the file / then `sync` of the copy", "%s / %s", cpTook.Round(time.Millisecond), syncTook.Round(time.Millisecond))
	rep.row("`carteiro backup` (online backup API, synced) while accepting", "%s (%.2f× cp, %.2f× cp+sync)", withBackup.took.Round(time.Millisecond),
		withBackup.took.Seconds()/cpTook.Seconds(), withBackup.took.Seconds()/(cpTook+syncTook).Seconds())
	rep.row("VACUUM INTO (D79's first method, synced) while accepting", "%s (%.2f× cp)", withVacuum.took.Round(time.Millisecond), withVacuum.took.Seconds()/cpTook.Seconds())
	for _, r := range []struct {
		name string
		run  duringRun
	}{{"accept alone", alone}, {"accept during carteiro backup", withBackup}, {"accept during VACUUM INTO", withVacuum}} {
		lat := latency.Summarize(r.run.tally.latencies)
		rep.row(r.name+": rate, p50 / p99 / max", "%s over %s; %s / %s / %s; %s", perSecond(float64(r.run.tally.accepted)/r.run.took.Seconds()),
			r.run.took.Round(time.Millisecond), millis(lat.P50), millis(lat.P99), millis(lat.Max), statusCounts(r.run.tally.statuses))
	}
	rep.row("the copy", "integrity_check: %s; %s emails, %s committed when the backup started", okOr(checkErr), thousands(inCopy), thousands(before))
	aloneP99, backupP99 := latency.Summarize(alone.tally.latencies).P99, latency.Summarize(withBackup.tally.latencies).P99
	rep.check("backup ≤ 2× cp", fmt.Sprintf("%.2f×", withBackup.took.Seconds()/cpTook.Seconds()), withBackup.took <= 2*cpTook)
	rep.check(fmt.Sprintf("accept p99 during backup ≤ 2× alone (%s)", millis(aloneP99)), millis(backupP99), backupP99 > 0 && backupP99 <= 2*aloneP99)
	rep.check("the copy passes integrity_check and holds every email committed before it started", fmt.Sprintf("%s emails of %s", thousands(inCopy), thousands(before)),
		checkErr == nil && countErr == nil && inCopy >= before)
	rep.write(stdout)
	return nil
}

func okOr(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

// timedCommand runs a command and returns how long it took.
func timedCommand(ctx context.Context, name string, args ...string) (time.Duration, error) {
	start := time.Now()
	if out, err := exec.CommandContext(ctx, name, args...).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("%s: %w: %s", name, err, out)
	}
	return time.Since(start), nil
}

func openSQLiteFile(path string) (*sql.DB, error) {
	return sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
}

func countEmails(ctx context.Context, path string) (int64, error) {
	db, err := openSQLiteFile(path)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var n int64
	return n, db.QueryRowContext(ctx, `SELECT count(*) FROM emails`).Scan(&n)
}

func integrityCheck(ctx context.Context, path string) error {
	db, err := openSQLiteFile(path)
	if err != nil {
		return err
	}
	defer db.Close()
	var res string
	if err := db.QueryRowContext(ctx, `PRAGMA integrity_check(1)`).Scan(&res); err != nil {
		return err
	}
	if res != "ok" {
		return errors.New(res)
	}
	return nil
}

// vacuumInto copies the database as D79's first `carteiro backup` did:
// VACUUM INTO, then fsync.
func vacuumInto(ctx context.Context, path, to string) error {
	db, err := openSQLiteFile(path)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, to); err != nil {
		return err
	}
	f, err := os.OpenFile(to, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
