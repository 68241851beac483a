package testserver

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/carteiro/carteiro/internal/testutil"
)

// River's leader election reads the frozen test clock twice per attempt.
// When a test moves the clock between those two reads, the leader can step
// down while its river_leader row, stamped with the later time, stays
// unexpired; a frozen clock never reaches its expiry, so no client is
// leader, River's scheduler does not run, and a retry or a scheduled email
// that the move made due waits for ever (seen in CI, under load). The
// watchdog below notices the symptom, due jobs that stay unscheduled, and
// removes the stale row so that the next election (within River's 5 to 6 s
// interval) succeeds. A healthy scheduler moves due jobs every 5 s, so it
// never fires while River works; it changes neither the test clock nor any
// job.

const (
	leaderWatchEvery = 2 * time.Second
	// leaderStallAfter is how long due jobs may wait before the watchdog
	// acts: more than two scheduler intervals.
	leaderStallAfter = 12 * time.Second
)

// leaderWatch is the watchdog of one test server.
type leaderWatch struct {
	t     testing.TB
	url   string
	clock *testutil.Clock
	start time.Time
	stop  chan struct{}
	done  sync.WaitGroup
	// last is River's state at the last look after the clock moved, shown
	// when the test fails (read only after done).
	last string
}

// watchRiverLeader starts the watchdog for the database at url; it stops
// when the test ends, before the server shuts down.
func watchRiverLeader(t testing.TB, url string, clock *testutil.Clock) {
	w := &leaderWatch{t: t, url: url, clock: clock, start: clock.Now(), stop: make(chan struct{})}
	w.done.Add(1)
	go w.run()
	t.Cleanup(func() {
		close(w.stop)
		w.done.Wait()
		if t.Failed() && w.last != "" {
			t.Logf("testserver: River's state at the watchdog's last look (test clock %s):\n%s", w.clock.Now().Format(time.RFC3339Nano), w.last)
		}
	})
}

func (w *leaderWatch) run() {
	defer w.done.Done()
	db := w.open()
	if db == nil {
		return
	}
	defer db.close()
	tick := time.NewTicker(leaderWatchEvery)
	defer tick.Stop()
	var stalledSince time.Time
	for {
		select {
		case <-w.stop:
			return
		case <-tick.C:
		}
		now := w.clock.Now()
		if now.Equal(w.start) { // an unmoved clock cannot strand the leader
			continue
		}
		w.last = db.describe()
		due, err := db.dueJobs(now)
		if err != nil || !due {
			stalledSince = time.Time{}
			continue
		}
		if stalledSince.IsZero() {
			stalledSince = time.Now()
			continue
		}
		if time.Since(stalledSince) < leaderStallAfter {
			continue
		}
		if err := db.dropLeader(); err == nil {
			w.t.Logf("testserver: due jobs waited %s with no River leader after a moved clock; removed the stale leader row", time.Since(stalledSince).Round(time.Second))
		}
		stalledSince = time.Time{}
	}
}

// watchDB is the watchdog's own connection to the server's database.
type watchDB struct {
	sqlite *sql.DB
	pg     *pgx.Conn
}

func (w *leaderWatch) open() *watchDB {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if path, ok := strings.CutPrefix(w.url, "sqlite:"); ok {
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
		if err != nil {
			return nil
		}
		db.SetMaxOpenConns(1)
		return &watchDB{sqlite: db}
	}
	conn, err := pgx.Connect(ctx, w.url)
	if err != nil {
		return nil
	}
	return &watchDB{pg: conn}
}

func (d *watchDB) close() {
	if d.sqlite != nil {
		d.sqlite.Close()
		return
	}
	d.pg.Close(context.Background())
}

// dueJobs reports whether a job waits for the scheduler although the clock
// says it is due.
func (d *watchDB) dueJobs(now time.Time) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	const q = `SELECT EXISTS (SELECT 1 FROM river_job WHERE state IN ('scheduled', 'retryable') AND scheduled_at <= $1)`
	var due bool
	var err error
	if d.sqlite != nil {
		// River keeps SQLite times as text in this one format.
		err = d.sqlite.QueryRowContext(ctx, strings.Replace(q, "$1", "?", 1), now.UTC().Format("2006-01-02 15:04:05.000")).Scan(&due)
	} else {
		err = d.pg.QueryRow(ctx, q, now).Scan(&due)
	}
	return due, err
}

func (d *watchDB) dropLeader() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var err error
	if d.sqlite != nil {
		_, err = d.sqlite.ExecContext(ctx, `DELETE FROM river_leader`)
	} else {
		_, err = d.pg.Exec(ctx, `DELETE FROM river_leader`)
	}
	return err
}

// describe lists River's leader row and its unfinished jobs, for the log
// of a failed test.
func (d *watchDB) describe() string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var b strings.Builder
	for _, q := range []string{
		`SELECT leader_id, elected_at, expires_at FROM river_leader`,
		`SELECT id, kind, queue, state, attempt, scheduled_at FROM river_job WHERE state NOT IN ('completed', 'cancelled', 'discarded') ORDER BY id LIMIT 20`,
	} {
		rows, err := d.rows(ctx, q)
		if err != nil {
			fmt.Fprintf(&b, "%s: %v\n", q, err)
			continue
		}
		for _, r := range rows {
			fmt.Fprintln(&b, r...)
		}
	}
	return b.String()
}

func (d *watchDB) rows(ctx context.Context, q string) ([][]any, error) {
	var out [][]any
	if d.pg != nil {
		rows, err := d.pg.Query(ctx, q)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				return nil, err
			}
			out = append(out, vals)
		}
		return out, rows.Err()
	}
	rows, err := d.sqlite.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	for rows.Next() {
		vals, err := scanValues(rows, len(cols))
		if err != nil {
			return nil, err
		}
		out = append(out, vals)
	}
	return out, rows.Err()
}
