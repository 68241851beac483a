package store_test

import (
	"errors"
	"log/slog"
	"testing"

	"github.com/carteiro/carteiro/internal/queue"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

// TestLockServing checks that one process at a time works on a SQLite
// file (the second is told why), that releasing frees it, and that
// PostgreSQL, shared by design (D1), takes no lock.
func TestLockServing(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		url := testserver.DatabaseURL(t, b)
		first, second := openURL(t, url), openURL(t, url)
		release, locked, err := first.LockServing()
		if err != nil {
			t.Fatalf("first lock: %v", err)
		}
		if b == testserver.Postgres {
			if locked {
				t.Fatal("PostgreSQL: locked, want no lock (several workers share it)")
			}
			release()
			if _, locked, err := second.LockServing(); err != nil || locked {
				t.Fatalf("PostgreSQL, second: locked %v, err %v; want neither", locked, err)
			}
			return
		}
		if !locked {
			t.Fatal("SQLite: not locked")
		}
		if _, _, err := second.LockServing(); !errors.Is(err, store.ErrServedElsewhere) {
			t.Fatalf("second lock while the first holds it: %v, want ErrServedElsewhere", err)
		}
		release()
		again, locked, err := second.LockServing()
		if err != nil || !locked {
			t.Fatalf("lock after release: locked %v, err %v", locked, err)
		}
		again()
	})
}

// TestRequeueOrphanedJobs checks that jobs left running become available
// again, keeping their attempt, while jobs in every other state are left
// as they are.
func TestRequeueOrphanedJobs(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		if err := queue.New(st, slog.New(slog.DiscardHandler)).Migrate(ctx); err != nil {
			t.Fatalf("River migrate: %v", err)
		}
		// Two jobs a dead process had fetched: running, one attempt.
		orphans := []int64{insertJob(t, st, nil), insertJob(t, st, nil)}
		for _, id := range orphans {
			rawExec(t, st, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = CURRENT_TIMESTAMP WHERE id = ?`, id)
		}
		completed := insertJob(t, st, nil)
		rawExec(t, st, `UPDATE river_job SET state = 'completed', attempt = 1, finalized_at = CURRENT_TIMESTAMP WHERE id = ?`, completed)
		retryable := insertJob(t, st, nil)
		rawExec(t, st, `UPDATE river_job SET state = 'retryable', attempt = 1 WHERE id = ?`, retryable)
		available := insertJob(t, st, nil)

		n, err := st.RequeueOrphanedJobs(ctx)
		if err != nil || n != 2 {
			t.Fatalf("RequeueOrphanedJobs = %d, %v; want 2", n, err)
		}
		want := map[int64]string{orphans[0]: "available", orphans[1]: "available", completed: "completed", retryable: "retryable", available: "available"}
		for id, state := range want {
			var got string
			var attempt int
			q := `SELECT state, attempt FROM river_job WHERE id = ?`
			if b == testserver.Postgres {
				err = st.Pool().QueryRow(ctx, dollarPlaceholders(q), id).Scan(&got, &attempt)
			} else {
				err = st.SQLiteWriteDB().QueryRowContext(ctx, q, id).Scan(&got, &attempt)
			}
			if err != nil || got != state {
				t.Errorf("job %d: state %q (%v), want %q", id, got, err, state)
			}
			if id == orphans[0] && attempt != 1 {
				t.Errorf("requeued job: attempt %d, want the interrupted one counted (1)", attempt)
			}
		}
		if n, err := st.RequeueOrphanedJobs(ctx); err != nil || n != 0 {
			t.Fatalf("second RequeueOrphanedJobs = %d, %v; want 0", n, err)
		}
	})
}
