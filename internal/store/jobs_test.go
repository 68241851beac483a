package store_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/carteiro/carteiro/internal/queue"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

// countedJob is a job kind that no worker handles: it is only counted.
type countedJob struct{}

func (countedJob) Kind() string { return "store_test_counted" }

// insertJob inserts one job through an insert-only River client on st.
func insertJob(t *testing.T, st *store.Store, opts *river.InsertOpts) int64 {
	t.Helper()
	ctx := testContext(t)
	if st.Dialect() == store.Postgres {
		c, err := river.NewClient(riverpgxv5.New(st.Pool()), &river.Config{})
		if err != nil {
			t.Fatalf("River client: %v", err)
		}
		res, err := c.Insert(ctx, countedJob{}, opts)
		if err != nil {
			t.Fatalf("insert job: %v", err)
		}
		return res.Job.ID
	}
	c, err := river.NewClient(riversqlite.New(st.SQLiteWriteDB()), &river.Config{})
	if err != nil {
		t.Fatalf("River client: %v", err)
	}
	res, err := c.Insert(ctx, countedJob{}, opts)
	if err != nil {
		t.Fatalf("insert job: %v", err)
	}
	return res.Job.ID
}

func TestJobCounts(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)

		if _, err := st.JobCounts(ctx); err == nil {
			t.Error("JobCounts succeeded before River's tables exist")
		}
		if err := queue.New(st, slog.New(slog.DiscardHandler)).Migrate(ctx); err != nil {
			t.Fatalf("River migrate: %v", err)
		}

		counts, err := st.JobCounts(ctx)
		if err != nil {
			t.Fatalf("JobCounts on an empty queue: %v", err)
		}
		for _, state := range []string{"available", "scheduled", "retryable", "running"} {
			if n, ok := counts[state]; !ok || n != 0 {
				t.Errorf("empty queue: counts[%s] = %d (present %v), want 0 present", state, n, ok)
			}
		}

		insertJob(t, st, nil)
		insertJob(t, st, nil)
		insertJob(t, st, &river.InsertOpts{ScheduledAt: time.Now().Add(time.Hour)})
		insertJob(t, st, &river.InsertOpts{Pending: true})
		retryable := insertJob(t, st, nil)
		rawExec(t, st, `UPDATE river_job SET state = 'retryable' WHERE id = ?`, retryable)
		// Finished jobs are not queue depth.
		completed := insertJob(t, st, nil)
		rawExec(t, st, `UPDATE river_job SET state = 'completed', finalized_at = CURRENT_TIMESTAMP WHERE id = ?`, completed)

		counts, err = st.JobCounts(ctx)
		if err != nil {
			t.Fatalf("JobCounts: %v", err)
		}
		want := map[string]int{"available": 2, "scheduled": 1, "retryable": 1, "running": 0, "pending": 1}
		for state, n := range want {
			if counts[state] != n {
				t.Errorf("counts[%s] = %d, want %d (all: %v)", state, counts[state], n, counts)
			}
		}
		if _, ok := counts["completed"]; ok {
			t.Errorf("finished jobs are counted: %v", counts)
		}
	})
}
