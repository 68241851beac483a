package e2e

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// TestWebhookDeliveriesSurviveRestartAndPause: deliveries waiting when the
// server stops are sent after it starts again; a paused webhook keeps its
// deliveries pending and sends them once active (D50).
func TestWebhookDeliveriesSurviveRestartAndPause(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		var down atomic.Bool
		down.Store(true)
		rcv := testutil.NewTLSReceiver(t, func(w http.ResponseWriter, r *http.Request) {
			if down.Load() {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			w.WriteHeader(http.StatusNoContent)
		})
		env := map[string]string{"CARTEIRO_WEBHOOK_ALLOW_PRIVATE": "true", "CARTEIRO_WEBHOOK_CA_FILE": rcv.CAFile()}
		first := testserver.StartServer(t, b, env)
		hook := createHook(t, first, rcv.URL(), []string{"email.delivered"}, "")["id"].(string)
		for i := 0; i < 5; i++ {
			send(t, first, first.TestKey, map[string]any{"from": "a@x.example", "to": "ok@y.example", "subject": "s", "text": "t"})
		}
		_, err := rcv.WaitForRequests(5, 10*time.Second)
		testserver.Must(t, err == nil, "first attempts: %v", err)
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		testserver.Must(t, first.Shutdown(ctx) == nil, "shutdown")

		// A new process on the same database, the endpoint healthy again.
		down.Store(false)
		env["CARTEIRO_DATABASE_URL"] = first.Config.DatabaseURL
		second := testserver.StartServer(t, b, env)
		second.LiveKey, second.TestKey = first.LiveKey, first.TestKey
		second.Clock.Advance(10 * time.Second) // past the first retry (5 s, D49)
		deadline := time.Now().Add(15 * time.Second)
		for time.Now().Before(deadline) && countStatus(t, second, hook, "success") < 5 {
			time.Sleep(50 * time.Millisecond)
		}
		testserver.Must(t, countStatus(t, second, hook, "success") == 5, "deliveries lost over the restart")

		// Paused: new deliveries wait as pending and nothing is sent.
		r := second.Do(t, testserver.Request{Method: "PATCH", Path: "/v1/product/webhooks/" + hook, Key: second.LiveKey, Body: map[string]string{"status": "paused"}})
		testserver.Expect(t, r, 200, "")
		rcv.Reset()
		for i := 0; i < 3; i++ {
			res := send(t, second, second.TestKey, map[string]any{"from": "a@x.example", "to": "ok@y.example", "subject": "p", "text": "t"})
			waitStatus(t, second, second.TestKey, res.ID, "delivered")
		}
		time.Sleep(300 * time.Millisecond)
		testserver.Must(t, len(rcv.Requests()) == 0 && countStatus(t, second, hook, "pending") == 3, "a paused webhook sent (%d requests)", len(rcv.Requests()))
		r = second.Do(t, testserver.Request{Method: "PATCH", Path: "/v1/product/webhooks/" + hook, Key: second.LiveKey, Body: map[string]string{"status": "active"}})
		testserver.Expect(t, r, 200, "")
		_, err = rcv.WaitForRequests(3, 10*time.Second)
		testserver.Must(t, err == nil, "pending deliveries not sent after reactivation: %v", err)
	})
}

func countStatus(t *testing.T, ts *testserver.TestServer, hook, status string) int {
	t.Helper()
	r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/webhooks/" + hook + "/deliveries?status=" + status + "&limit=200", Key: ts.LiveKey})
	testserver.Expect(t, r, 200, "")
	return len(r.JSON(t)["deliveries"].([]any))
}
