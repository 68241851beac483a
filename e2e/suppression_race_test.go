package e2e

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

// TestNoMessageAfterSuppressionCommitted: while 5,000 emails are being
// delivered, 500 of their recipients are suppressed through the API; no
// message reaches a recipient after that recipient's suppression committed
// (its POST returned), and every other recipient gets its email.
//
// Not parallel: 5,000 deliveries under -race take the CPU, and the queue must
// drain within 4 minutes.
func TestNoMessageAfterSuppressionCommitted(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		const total, suppressed = 5000, 500
		ts, smtp, _ := relayServer(t, b, map[string]string{"CARTEIRO_RATE_LIMIT_KEY": "100000,100000"})
		rcpt := func(i int) string { return fmt.Sprintf("r%d@customer.example", i) }

		var wg sync.WaitGroup
		committed := make([]time.Time, suppressed) // when each suppression's POST returned
		wg.Add(2)
		go func() {
			defer wg.Done()
			for start := 0; start < total; start += 100 {
				batch := make([]any, 100)
				for i := range batch {
					batch[i] = map[string]any{"from": "orders@shop.example", "to": rcpt(start + i), "subject": "race", "text": "t"}
				}
				r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/batch", Key: ts.LiveKey, Body: batch})
				if r.Status != http.StatusAccepted {
					t.Errorf("batch: %d %s", r.Status, r.Body)
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			time.Sleep(100 * time.Millisecond) // let deliveries start first
			for i := 0; i < suppressed; i++ {
				r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/suppressions", Key: ts.LiveKey,
					Body: map[string]string{"email": rcpt(i * 10)}})
				committed[i] = time.Now()
				if r.Status != http.StatusCreated {
					t.Errorf("suppress: %d %s", r.Status, r.Body)
					return
				}
			}
		}()
		wg.Wait()

		// Wait for the queue to drain.
		deadline := time.Now().Add(4 * time.Minute)
		for time.Now().Before(deadline) {
			counts, err := ts.Store.JobCounts(context.Background())
			testserver.Must(t, err == nil, "job counts: %v", err)
			if counts["available"]+counts["running"]+counts["retryable"]+counts["scheduled"] == 0 {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		received := map[string]time.Time{}
		for _, m := range smtp.Messages() {
			for _, to := range m.To {
				received[to] = m.ReceivedAt
			}
		}
		late, skipped := 0, 0
		for i := 0; i < suppressed; i++ {
			at, ok := received[rcpt(i*10)]
			switch {
			case !ok:
				skipped++
			case at.After(committed[i]):
				late++
				t.Errorf("%s received at %s, after its suppression committed at %s", rcpt(i*10), at.Format(time.StampMicro), committed[i].Format(time.StampMicro))
			}
		}
		missing := 0
		for i := 0; i < total; i++ {
			if i%10 != 0 {
				if _, ok := received[rcpt(i)]; !ok {
					missing++
				}
			}
		}
		t.Logf("%s: %d emails; %d suppressed mid-flight: %d delivered before their suppression, %d skipped, %d late", b, total, suppressed,
			suppressed-skipped-late, skipped, late)
		testserver.Must(t, late == 0, "%d messages reached recipients after their suppression committed", late)
		testserver.Must(t, missing == 0, "%d unsuppressed recipients got nothing", missing)
	})
}
