package e2e

import (
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

// D62: an idempotency key is scoped by mode as well as organization,
// endpoint and key. A live request that reuses a key a test key used (same
// body) is a new email that is really sent, not a replay of the test
// email's id; and the reverse.
func TestIdempotencyKeyDoesNotCrossModesD62(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp, _ := relayServer(t, b, nil)
		body := map[string]any{"from": "orders@shop.example", "to": "buyer@customer.example", "subject": "order 7", "text": "t",
			"idempotencyKey": "order-7"}
		post := func(key string) *testserver.Response {
			r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails", Key: key, Body: body})
			testserver.Expect(t, r, 202, "")
			return r
		}
		var testRes, liveRes, liveAgain, testAgain sendResult
		post(ts.TestKey).Decode(t, &testRes)
		r := post(ts.LiveKey)
		r.Decode(t, &liveRes)
		testserver.Must(t, r.Header.Get("Idempotent-Replayed") == "", "the live request replayed the test request")
		testserver.Must(t, liveRes.ID != testRes.ID, "the live request got the test email's id %s", testRes.ID)
		waitStatus(t, ts, ts.LiveKey, liveRes.ID, "delivered")
		msgs, err := smtp.WaitForMessages(1, 10*time.Second)
		testserver.Must(t, err == nil && len(msgs) == 1, "the live email was not sent: %v", err)

		// Each mode still replays its own request.
		r = post(ts.LiveKey)
		r.Decode(t, &liveAgain)
		testserver.Must(t, r.Header.Get("Idempotent-Replayed") == "true" && liveAgain.ID == liveRes.ID, "live replay: %s", r.Body)
		r = post(ts.TestKey)
		r.Decode(t, &testAgain)
		testserver.Must(t, r.Header.Get("Idempotent-Replayed") == "true" && testAgain.ID == testRes.ID, "test replay: %s", r.Body)
	})
}
