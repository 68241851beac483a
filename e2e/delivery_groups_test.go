package e2e

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// A batch's emails share one delivery job. When the relay is slow and the
// job's time would run out before every email is attempted, the emails not
// started in its first third go to a new job instead of being cut short:
// each email is attempted once and reaches the relay once.
//
// A group job gets 1.5 times CARTEIRO_JOB_TIMEOUT (4 s here: 6 s) and starts
// attempts for 2 s. With 4 delivery workers and a relay that takes 3.5 s to
// answer each message, the first 4 attempts end at 3.5 s, and the last 2
// start then in a job that took them over (ending at about 7 s, within that
// job's time). Left in the first job they would have been cut short at 6 s,
// attempted again (attempts 2) and received twice.
func TestBatchGroupHandsOverEmailsNotStarted(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp, _ := relayServer(t, b, map[string]string{
			"CARTEIRO_JOB_TIMEOUT": "4s", "CARTEIRO_DELIVERY_WORKERS": "4", "CARTEIRO_WARMUP": "off",
			"CARTEIRO_SMTP_TIMEOUT": "3s", // 6 s for the reply to DATA
		})
		smtp.SetStall(testutil.StageData, 3500*time.Millisecond)
		const n = 6
		batch := make([]any, n)
		for i := range batch {
			batch[i] = map[string]any{"from": "orders@shop.example", "to": fmt.Sprintf("r%02d@customer.example", i), "subject": "slow relay", "text": "t"}
		}
		r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/batch", Key: ts.LiveKey, Body: batch})
		testserver.Expect(t, r, http.StatusAccepted, "")
		var items []struct {
			OK   bool       `json:"ok"`
			Data sendResult `json:"data"`
		}
		r.Decode(t, &items)
		testserver.Must(t, len(items) == n, "%d items answered, want %d", len(items), n)

		_, err := smtp.WaitForMessages(n, 30*time.Second)
		testserver.Must(t, err == nil, "relay: %v", err)
		for _, it := range items {
			testserver.Must(t, it.OK, "item refused: %+v", it)
			e := waitStatus(t, ts, ts.LiveKey, it.Data.ID, "delivered")
			testserver.Must(t, e.Attempts == 1, "email %s to %v: %d attempts, want 1 (an attempt was cut short)", e.ID, e.To, e.Attempts)
		}
		time.Sleep(500 * time.Millisecond) // a repeated attempt would land now
		for rcpt, count := range smtp.RecipientCounts() {
			testserver.Must(t, count == 1, "%s received %d messages, want 1", rcpt, count)
		}
		testserver.Must(t, len(smtp.RecipientCounts()) == n, "%d recipients reached, want %d", len(smtp.RecipientCounts()), n)
	})
}
