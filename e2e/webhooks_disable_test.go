package e2e

import (
	"net/http"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// TestFailingWebhookIsDisabled walks D49's schedule with a moved clock
// against an endpoint that always fails: each delivery is exhausted after 8
// attempts, and once every delivery has failed for 5 days over at least 20
// attempts the webhook becomes disabled and gets no new deliveries (D50).
func TestFailingWebhookIsDisabled(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		rcv := testutil.NewTLSReceiver(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusInternalServerError) })
		ts := webhookServer(t, b, rcv)
		hook := createHook(t, ts, rcv.URL(), []string{"email.sent", "email.delivered"}, "")["id"].(string)
		attempts := func() int { return len(rcv.Requests()) }
		// The receiver counts a request before the service records its
		// failure and schedules the retry; a clock moved in between would
		// put the retry after the move, out of the frozen clock's reach
		// (seen in CI). So wait for the records too.
		waitAttempts := func(n int) {
			t.Helper()
			waitFor(t, func() bool { return attempts() >= n && recordedAttempts(t, ts, hook) >= n })
		}
		mail := map[string]any{"from": "a@x.example", "to": "ok@y.example", "subject": "s", "text": "t"}

		send(t, ts, ts.TestKey, mail) // email.sent + email.delivered: 2 deliveries
		waitAttempts(2)
		for i, delay := range []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour} {
			ts.Clock.Advance(delay + delay/10 + time.Second) // past the jitter
			waitAttempts(2 * (i + 2))
		}
		waitFor(t, func() bool { return countStatus(t, ts, hook, "exhausted") == 2 })
		testserver.Must(t, attempts() == 16, "attempts %d, want 8 per delivery", attempts())
		r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/webhooks/" + hook, Key: ts.LiveKey})
		testserver.Must(t, r.JSON(t)["status"] == "active", "disabled too early: %s", r.Body)

		// Five days after the first failure, 4 more failed attempts: disabled.
		ts.Clock.Advance(5 * 24 * time.Hour)
		send(t, ts, ts.TestKey, mail)
		waitAttempts(18)
		ts.Clock.Advance(6 * time.Second)
		waitAttempts(20)
		waitFor(t, func() bool {
			r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/webhooks/" + hook, Key: ts.LiveKey})
			return r.JSON(t)["status"] == "disabled"
		})
		before := countStatus(t, ts, hook, "")
		res := send(t, ts, ts.TestKey, mail)
		waitStatus(t, ts, ts.TestKey, res.ID, "delivered")
		time.Sleep(200 * time.Millisecond)
		testserver.Must(t, countStatus(t, ts, hook, "") == before, "a disabled webhook got new deliveries")
	})
}

// recordedAttempts is the sum of the attempts recorded on the webhook's
// deliveries.
func recordedAttempts(t *testing.T, ts *testserver.TestServer, hook string) int {
	t.Helper()
	r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/webhooks/" + hook + "/deliveries?limit=200", Key: ts.LiveKey})
	testserver.Expect(t, r, http.StatusOK, "")
	var page struct{ Deliveries []struct{ Attempts int } }
	r.Decode(t, &page)
	sum := 0
	for _, d := range page.Deliveries {
		sum += d.Attempts
	}
	return sum
}
