package queue_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/queue"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

// TestJobsCommitWithTheirTransaction (D2): jobs inserted through the
// store's transaction (store.JobWriter), one at a time or many in one
// statement, exist exactly when the transaction commits: an email rolled
// back leaves no delivery job behind, and a committed one is queued, due
// now or at its scheduled time.
func TestJobsCommitWithTheirTransaction(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		st, err := store.Open(ctx, testserver.DatabaseURL(t, b))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		if _, err := st.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		q := queue.New(st, slog.New(slog.DiscardHandler))
		if err := q.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if err := q.Start(ctx, nil, queue.Options{}); err != nil { // inserts only
			t.Fatal(err)
		}
		enqueue := func(tx *store.Tx) error {
			later := time.Now().Add(time.Hour)
			if err := q.EnqueueTx(ctx, tx, app.DeliverJob{EmailID: "e-scheduled"}, app.JobOpts{ScheduledAt: later}); err != nil {
				return err
			}
			group := []app.Job{app.DeliverGroupJob{EmailIDs: []string{"e1", "e2"}}, app.DeliverGroupJob{EmailIDs: []string{"e3"}, Background: true}}
			return q.EnqueueManyTx(ctx, tx, group, app.JobOpts{})
		}

		boom := errors.New("the email's insert failed")
		err = st.InTx(ctx, func(tx *store.Tx) error {
			if err := enqueue(tx); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("rolled-back transaction: %v", err)
		}
		if counts, err := st.JobCounts(ctx); err != nil || counts["available"]+counts["scheduled"] != 0 {
			t.Fatalf("jobs of a rolled-back transaction: %v %v", counts, err)
		}

		if err := st.InTx(ctx, enqueue); err != nil {
			t.Fatalf("committed transaction: %v", err)
		}
		counts, err := st.JobCounts(ctx)
		if err != nil || counts["available"] != 2 || counts["scheduled"] != 1 {
			t.Fatalf("jobs after the commit: %v %v, want 2 available and 1 scheduled", counts, err)
		}
	})
}
