package queue

import (
	"testing"

	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/config"
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
