package queue

import (
	"context"
	"log/slog"
	"testing"

	"github.com/riverqueue/river"

	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/config"
	"github.com/carteiro/carteiro/internal/store"
)

// TestRetentionPassOutlastsTheJobTimeout (D77): a purge pass may run its
// whole app.PurgePassLimit; River would otherwise cancel it at the job
// timeout meant for delivery attempts (30 s by default), and rescue it as
// stuck at twice that.
func TestRetentionPassOutlastsTheJobTimeout(t *testing.T) {
	c, err := config.Load(func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	got := (&retentionWorker{}).Timeout(nil)
	if got <= app.PurgePassLimit || got <= RescueAfter(c.JobTimeout) {
		t.Fatalf("the retention job times out after %s; a pass may take %s (job timeout %s)", got, app.PurgePassLimit, c.JobTimeout)
	}
}

// TestRetentionPassDoesNotWaitBehindDeliveries (D77, issue 31): the purge
// pass is queued on a queue of its own, with a worker, so that a backlog
// of deliveries (River takes a queue's jobs oldest first at one priority)
// cannot keep it from starting; in the default queue a pass did not start
// within 12 minutes of a server started on a backlog under load.
func TestRetentionPassDoesNotWaitBehindDeliveries(t *testing.T) {
	opts := retentionInsertOpts()
	if opts.Queue == "" || opts.Queue == river.QueueDefault {
		t.Fatalf("the retention pass is queued on %q, behind the deliveries", opts.Queue)
	}
	st, err := store.Open(context.Background(), "sqlite:"+t.TempDir()+"/carteiro.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	q := New(st, slog.New(slog.DiscardHandler))
	cfg := q.config(nil, Options{Work: true, Workers: 4})
	if cfg.Queues[opts.Queue].MaxWorkers < 1 {
		t.Fatalf("no worker takes the queue %q of the retention pass: %v", opts.Queue, cfg.Queues)
	}
	if got := opts.UniqueOpts; len(got.ByState) == 0 || !got.ByArgs {
		t.Fatalf("an hourly insert while a pass waits or runs is not skipped: %+v", got)
	}
}
