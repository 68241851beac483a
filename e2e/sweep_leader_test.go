package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/carteiro/carteiro/internal/testserver"
)

// TestDomainSweepRunsOncePerHourAcrossLeaderChanges hands River's leadership
// from one process to another twice on one PostgreSQL database. Each new
// leader runs the periodic jobs that run on start; the domain sweep is
// unique per hour, so the second leader, in the first leader's hour, adds
// no sweep, and the third, whose clock is an hour later, adds one: two
// sweeps, not three (6 in 11 minutes of faults before).
func TestDomainSweepRunsOncePerHourAcrossLeaderChanges(t *testing.T) {
	t.Parallel()
	if next := time.Now().Truncate(time.Hour).Add(time.Hour); time.Until(next) < 30*time.Second {
		time.Sleep(time.Until(next) + time.Second) // the first two leaders share an hour
	}
	first := testserver.StartServer(t, testserver.Postgres, nil)
	url := first.Config.DatabaseURL
	db, err := pgx.Connect(context.Background(), url)
	testserver.Must(t, err == nil, "connect: %v", err)
	t.Cleanup(func() { _ = db.Close(context.Background()) })
	sweeps := func() int {
		var n int
		err := db.QueryRow(context.Background(), "SELECT count(*) FROM river_job WHERE kind = 'domain_sweep'").Scan(&n)
		testserver.Must(t, err == nil, "count sweeps: %v", err)
		return n
	}
	waitFor(t, func() bool { return sweeps() == 1 })

	env := map[string]string{"CARTEIRO_DATABASE_URL": url}
	second := testserver.StartServer(t, testserver.Postgres, env)
	second.Clock.Set(first.Clock.Now())
	stopAndWaitForNewLeader(t, first, db)
	// The new leader's periodic jobs start with its leadership; give them
	// the time to try their insert before leadership moves on.
	time.Sleep(2 * time.Second)

	third := testserver.StartServer(t, testserver.Postgres, env)
	third.Clock.Set(first.Clock.Now().Add(time.Hour))
	stopAndWaitForNewLeader(t, second, db)
	waitFor(t, func() bool { return sweeps() >= 2 })
	time.Sleep(2 * time.Second) // as above: nothing else may come
	testserver.Must(t, sweeps() == 2, "%d domain sweeps across three leaders in two hours, want 2", sweeps())
}

// stopAndWaitForNewLeader shuts ts down (River resigns its leadership) and
// waits until another process holds it.
func stopAndWaitForNewLeader(t *testing.T, ts *testserver.TestServer, db *pgx.Conn) {
	t.Helper()
	leader := func() string {
		var id string
		if err := db.QueryRow(context.Background(), "SELECT leader_id FROM river_leader").Scan(&id); err != nil {
			return ""
		}
		return id
	}
	before := leader()
	testserver.Must(t, before != "", "no River leader before the change")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	testserver.Must(t, ts.Shutdown(ctx) == nil, "shutdown")
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if id := leader(); id != "" && id != before {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no new River leader within 30 s of %s resigning", before)
}
