package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/carteiro/carteiro/bench/internal/child"
	"github.com/carteiro/carteiro/bench/internal/database"
	"github.com/carteiro/carteiro/bench/internal/latency"
	"github.com/carteiro/carteiro/internal/testutil"
)

// day is a day in the microseconds the store keeps times in.
const day = int64(24 * time.Hour / time.Microsecond)

// keepForever turns the retention purge off (D77's 0) for the seed and
// the run without it.
var keepForever = []string{"CARTEIRO_CONTENT_RETENTION=0", "CARTEIRO_LOG_RETENTION=0"}

// runPurge is the purge scenario (D77, issue 31): -old emails are accepted
// and delivered through the API, the server stops, and their times are
// moved back (half by 450 days, past the default log retention of 400, the
// other half by 60, past the content retention of 30). The server then
// runs the same accept load three times: with retention off, and started with
// the default retention, whose purge runs at start, lasting until the
// purge's pass ends (its metrics move then); and once more with retention
// off, on the database the second run grew.
func runPurge(ctx context.Context, o options, bin, dir string, sk *sink, dns *testutil.DNSServer, stdout io.Writer, progress func(string, ...any)) (err error) {
	db, err := database.New(ctx, o.store, dir, database.DefaultPostgresURL(), o.pgParams)
	if err != nil {
		return err
	}
	if !o.keep {
		defer func() { err = errors.Join(err, db.Drop()) }()
	}
	env := serverEnv(db.URL, sk.Addr(), dns.Addr(), "")
	srv, err := child.Start(bin, dir, "all", append(env, keepForever...), "")
	if err != nil {
		return err
	}
	api := newAPIClient(srv.URL, srv.LiveKey, o.clients)
	if _, err := verifyDomain(ctx, api, dns); err != nil {
		_ = srv.Stop()
		return err
	}
	progress("seeding %s emails through POST /emails/batch", thousands(int64(o.old)))
	mid, err := seedOld(ctx, api, sk, o.old)
	stopErr := srv.Stop()
	if err != nil || stopErr != nil {
		return errors.Join(err, stopErr)
	}
	progress("moving the seeded emails back in time")
	if err := ageEmails(ctx, o.store, db.URL, mid); err != nil {
		return err
	}
	key := srv.LiveKey
	rep := &report{opts: o, machine: describeMachine(bin), when: time.Now()}

	progress("accept with retention off: %d clients for %s", o.clients, o.duration)
	srv, err = child.Start(bin, dir, "all", append(env, keepForever...), key)
	if err != nil {
		return err
	}
	api = newAPIClient(srv.URL, key, o.clients)
	alone := runDuring(ctx, o.clients, o.warmup, singleSender(api), sleepAction(o.duration))
	if err := srv.Stop(); err != nil {
		return err
	}

	progress("accept while the purge runs (default retention; the purge starts with the server)")
	started := time.Now()
	srv, err = child.Start(bin, dir, "all", env, key)
	if err != nil {
		return err
	}
	defer srv.Stop()
	api = newAPIClient(srv.URL, key, o.clients)
	var purged map[string]int64
	withPurge := runDuring(ctx, o.clients, o.warmup, singleSender(api), func(ctx context.Context) error {
		for deadline := time.Now().Add(12 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
			if purged, err = purgedTotals(ctx, srv.URL); err != nil {
				return err
			}
			if purged["email"]+purged["email_content"] > 0 {
				return nil
			}
			if time.Now().After(deadline) {
				return errors.New("the purge did not end within 12 minutes")
			}
		}
	})
	passTook := time.Since(started)
	if withPurge.err != nil {
		return withPurge.err
	}
	if err := srv.Stop(); err != nil {
		return err
	}

	// The purge window lasts minutes, during which the accepts grow the
	// database several times over; the same load without the purge on the
	// grown database tells how much of the difference is the size alone.
	progress("accept with retention off again, on the grown database: %d clients for %s", o.clients, o.duration)
	srv, err = child.Start(bin, dir, "all", append(env, keepForever...), key)
	if err != nil {
		return err
	}
	defer srv.Stop()
	api = newAPIClient(srv.URL, key, o.clients)
	after := runDuring(ctx, o.clients, o.warmup, singleSender(api), sleepAction(o.duration))
	if after.err != nil {
		return after.err
	}

	rep.row("seeded", "%s emails through the API, delivered; half moved back 450 days, half 60 days", thousands(int64(o.old)))
	rep.row("purged in one pass", "%s records deleted, %s emptied of their content; the pass ended %s after the server started",
		thousands(purged["email"]), thousands(purged["email_content"]), passTook.Round(time.Millisecond))
	for _, r := range []struct {
		name string
		run  duringRun
	}{{"accept, retention off", alone}, {"accept during the purge", withPurge}, {"accept, retention off, after the pass", after}} {
		lat := latency.Summarize(r.run.tally.latencies)
		rep.row(r.name+": rate, p50 / p99 / max", "%s over %s; %s / %s / %s; %s", perSecond(float64(r.run.tally.accepted)/r.run.took.Seconds()),
			r.run.took.Round(time.Millisecond), millis(lat.P50), millis(lat.P99), millis(lat.Max), statusCounts(r.run.tally.statuses))
	}
	aloneP99, purgeP99 := latency.Summarize(alone.tally.latencies).P99, latency.Summarize(withPurge.tally.latencies).P99
	rep.check(fmt.Sprintf("accept p99 during the purge ≤ 2× without (%s)", millis(aloneP99)), millis(purgeP99), purgeP99 > 0 && purgeP99 <= 2*aloneP99)
	afterP99 := latency.Summarize(after.tally.latencies).P99
	rep.check(fmt.Sprintf("accept p99 during the purge ≤ 2× without it on the grown database (%s)", millis(afterP99)), millis(purgeP99), purgeP99 > 0 && purgeP99 <= 2*afterP99)
	rep.check("every seeded email purged in the pass", fmt.Sprintf("%s of %s", thousands(purged["email"]+purged["email_content"]), thousands(int64(o.old))),
		purged["email"]+purged["email_content"] == int64(o.old))
	if withPurge.tally.calls == 0 {
		rep.note("The purge ended within the warm-up: no accept was measured during it; run again with a shorter -warmup.")
	}
	rep.write(stdout)
	return nil
}

// seedOld accepts n emails in batches from 8 clients, waits until the sink
// has them all, and returns the time (in the store's microseconds) when
// the first half had been accepted.
func seedOld(ctx context.Context, api *apiClient, sk *sink, n int) (int64, error) {
	var mid int64
	delivered := sk.Count()
	for half := range 2 {
		from, to := half*n/2, (half+1)*n/2
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for w := range 8 {
			wg.Go(func() {
				for first := from + w*maxBatch; first < to; first += 8 * maxBatch {
					size := min(maxBatch, to-first)
					if out := postBatch(ctx, api, int64(first), size); out.accepted != size {
						errs <- fmt.Errorf("seed batch: %d of %d accepted, status %s", out.accepted, size, out.status)
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			return 0, err
		}
		if half == 0 {
			time.Sleep(10 * time.Millisecond)
			mid = time.Now().UnixMicro()
			time.Sleep(10 * time.Millisecond)
		}
	}
	for deadline := time.Now().Add(10 * time.Minute); sk.Count()-delivered < int64(n); time.Sleep(250 * time.Millisecond) {
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("only %d of %d seeded emails delivered in 10 minutes", sk.Count()-delivered, n)
		}
	}
	time.Sleep(3 * time.Second) // the last deliveries' events
	return mid, nil
}

// ageEmails moves emails and their timelines back in time: those accepted
// before mid by 450 days, the others by 60.
func ageEmails(ctx context.Context, store, url string, mid int64) error {
	times := []string{"created_at", "scheduled_at", "sent_at", "delivered_at", "bounced_at", "failed_at", "complained_at",
		"suppressed_at", "opened_at", "first_clicked_at", "first_attempt_at"}
	var stmts []string
	for _, part := range []struct {
		where string
		days  int64
	}{{"created_at < " + strconv.FormatInt(mid, 10), 450}, {"created_at >= " + strconv.FormatInt(mid, 10), 60}} {
		shift := strconv.FormatInt(part.days*day, 10)
		stmts = append(stmts, "UPDATE email_events SET created_at = created_at - "+shift+" WHERE email_id IN (SELECT id FROM emails WHERE "+part.where+")")
		sets := make([]string, len(times))
		for i, c := range times {
			sets[i] = c + " = " + c + " - " + shift
		}
		stmts = append(stmts, "UPDATE emails SET "+strings.Join(sets, ", ")+" WHERE "+part.where)
	}
	if store == "postgres" {
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		defer conn.Close(context.Background())
		for _, s := range stmts {
			if _, err := conn.Exec(ctx, s); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		return nil
	}
	sdb, err := openSQLiteFile(strings.TrimPrefix(url, "sqlite:"))
	if err != nil {
		return err
	}
	defer sdb.Close()
	for _, s := range stmts {
		if _, err := sdb.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

var purgedLine = regexp.MustCompile(`(?m)^carteiro_retention_purged_total\{kind="([a-z_]+)"\} (\d+)`)

// purgedTotals reads the purge's counters from /metrics.
func purgedTotals(ctx context.Context, base string) (map[string]int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, m := range purgedLine.FindAllStringSubmatch(string(body), -1) {
		out[m[1]], _ = strconv.ParseInt(m[2], 10, 64)
	}
	return out, nil
}
