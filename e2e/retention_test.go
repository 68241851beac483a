package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// purgeNow runs the retention purge (D77) as its periodic job does, once
// the test has moved the clock.
func purgeNow(t *testing.T, ts *testserver.TestServer) {
	t.Helper()
	err := ts.Queue.Enqueue(context.Background(), app.RetentionJob{}, app.JobOpts{})
	testserver.Must(t, err == nil, "enqueue purge: %v", err)
}

// waitPurged waits for done, starting another purge pass every few seconds:
// under load the pass the test started can overlap the previous one (or
// the hourly pass the moved clock made due) and read the clock before it
// moved, so one pass alone is not proof; the service itself runs one every
// hour (D77).
func waitPurged(t *testing.T, ts *testserver.TestServer, done func() bool) {
	t.Helper()
	next := time.Now().Add(5 * time.Second)
	waitFor(t, func() bool {
		if done() {
			return true
		}
		if time.Now().After(next) {
			purgeNow(t, ts)
			next = time.Now().Add(5 * time.Second)
		}
		return false
	})
}

// statsTotals are GET /stats's totals over the test's days.
func statsTotals(t *testing.T, ts *testserver.TestServer, key string, from time.Time) map[string]int {
	t.Helper()
	q := "startDate=" + from.Add(-24*time.Hour).Format(time.RFC3339) + "&endDate=" + from.Add(48*time.Hour).Format(time.RFC3339)
	r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/stats?" + q, Key: key})
	testserver.Expect(t, r, http.StatusOK, "")
	var s statsAnswer
	r.Decode(t, &s)
	return s.Totals
}

func metricsBody(t *testing.T, ts *testserver.TestServer) string {
	t.Helper()
	r := ts.Do(t, testserver.Request{Method: "GET", Path: "/metrics"})
	testserver.Expect(t, r, http.StatusOK, "")
	return string(r.Body)
}

// TestD77RetentionDeletesContentThenRecords moves the clock past each of
// D77's periods: the content goes first, then the record with its
// recipients, tags and timeline, then the webhook deliveries; statistics,
// suppressions and a scheduled email not yet sent stay as they were.
func TestD77RetentionDeletesContentThenRecords(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		rcv := testutil.NewTLSReceiver(t, nil)
		ts := testserver.StartServer(t, b, map[string]string{
			"CARTEIRO_CONTENT_RETENTION": "2d", "CARTEIRO_LOG_RETENTION": "5d",
			"CARTEIRO_WEBHOOK_ALLOW_PRIVATE": "true", "CARTEIRO_WEBHOOK_CA_FILE": rcv.CAFile(),
		})
		t0 := ts.Clock.Now()
		hook := createHook(t, ts, rcv.URL()+"/hooks", []string{"email.delivered"}, "")["id"].(string)
		old := send(t, ts, ts.TestKey, map[string]any{"from": "a@x.example", "to": "keep@y.example", "subject": "old receipt",
			"html": "<p>secret html</p>", "text": "secret text", "idempotencyKey": "retention-1",
			"headers":     map[string]string{"X-Order": "42"},
			"attachments": []map[string]any{{"filename": "a.txt", "content": b64([]byte("attached")), "contentType": "text/plain", "disposition": "attachment"}},
			"tags":        []map[string]string{{"name": "kind", "value": "receipt"}}})
		waitStatus(t, ts, ts.TestKey, old.ID, "delivered")
		waitDelivery(t, ts, hook, 1)
		scheduledAt := t0.Add(20 * 24 * time.Hour).Format(time.RFC3339)
		later := send(t, ts, ts.TestKey, map[string]any{"from": "a@x.example", "to": "later@y.example", "subject": "later",
			"text": "waiting text", "scheduledAt": scheduledAt})
		r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/suppressions", Key: ts.LiveKey, Body: map[string]any{"email": "kept@y.example"}})
		testserver.Expect(t, r, http.StatusCreated, "")
		stats := statsTotals(t, ts, ts.TestKey, t0)
		timeline := eventTypes(events(t, ts, ts.TestKey, old.ID))
		testserver.Must(t, stats["sent"] == 1 && stats["delivered"] == 1, "stats before the purge %v", stats)

		// Past the content retention: html and text are null, the rest stays.
		ts.Clock.Advance(3 * 24 * time.Hour)
		purgeNow(t, ts)
		waitPurged(t, ts, func() bool { return getEmail(t, ts, ts.TestKey, old.ID).HTML == nil })
		e := getEmail(t, ts, ts.TestKey, old.ID)
		testserver.Must(t, e.Text == nil && e.Status == "delivered" && e.Subject != nil && *e.Subject == "old receipt", "emptied email %+v", e)
		testserver.Must(t, len(e.Tags) == 1 && e.To[0] == "keep@y.example", "record lost its tags or recipients: %+v", e)
		after := eventTypes(events(t, ts, ts.TestKey, old.ID))
		testserver.Must(t, strings.Join(after, ",") == strings.Join(timeline, ","), "timeline %v became %v", timeline, after)
		r = ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/" + old.ID + "/resend", Key: ts.TestKey})
		testserver.Must(t, r.Status != http.StatusAccepted, "an emptied email was resent: %d %s", r.Status, r.Body)
		s := getEmail(t, ts, ts.TestKey, later.ID)
		testserver.Must(t, s.Status == "scheduled" && s.Text != nil && *s.Text == "waiting text", "scheduled email touched: %+v", s)
		testserver.Must(t, statsEqual(stats, statsTotals(t, ts, ts.TestKey, t0)), "stats changed: %v", statsTotals(t, ts, ts.TestKey, t0))
		// The counters move when the whole pass ends (webhook deliveries and
		// idempotency keys come after the content), not at each batch.
		var m string
		waitFor(t, func() bool {
			m = metricsBody(t, ts)
			return strings.Contains(m, `carteiro_retention_purged_total{kind="idempotency_key"} 1`)
		})
		testserver.Must(t, strings.Contains(m, `carteiro_retention_purged_total{kind="email_content"} 1`), "content purge not counted:\n%s", grepLines(m, "retention"))
		testserver.Must(t, strings.Contains(m, `carteiro_retention_purged_total{kind="idempotency_key"} 1`), "expired key not purged:\n%s", grepLines(m, "retention"))
		testserver.Must(t, !strings.Contains(m, "carteiro_retention_content_bytes_total 0"), "bytes freed not counted:\n%s", grepLines(m, "retention"))

		// Past the log retention: the record is gone from every route.
		ts.Clock.Advance(3 * 24 * time.Hour)
		purgeNow(t, ts)
		waitPurged(t, ts, func() bool {
			return ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails/" + old.ID, Key: ts.TestKey}).Status == http.StatusNotFound
		})
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails/" + old.ID + "/events", Key: ts.TestKey})
		testserver.Expect(t, r, http.StatusNotFound, "")
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails?recipient=keep", Key: ts.TestKey})
		testserver.Must(t, r.Status == http.StatusOK && !strings.Contains(string(r.Body), old.ID), "listed after deletion: %s", r.Body)
		testserver.Must(t, statsEqual(stats, statsTotals(t, ts, ts.TestKey, t0)), "stats changed: %v", statsTotals(t, ts, ts.TestKey, t0))
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/suppressions?email=kept@y.example", Key: ts.LiveKey})
		testserver.Must(t, r.Status == http.StatusOK && strings.Contains(string(r.Body), "kept@y.example"), "suppression gone: %s", r.Body)
		s = getEmail(t, ts, ts.TestKey, later.ID)
		testserver.Must(t, s.Status == "scheduled" && s.Text != nil, "scheduled email touched: %+v", s)

		// Webhook deliveries go after 30 days.
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/webhooks/" + hook + "/deliveries", Key: ts.LiveKey})
		testserver.Must(t, len(r.JSON(t)["deliveries"].([]any)) == 1, "webhook deliveries before 30 days: %s", r.Body)
		ts.Clock.Advance(25 * 24 * time.Hour)
		purgeNow(t, ts)
		waitPurged(t, ts, func() bool {
			r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/webhooks/" + hook + "/deliveries", Key: ts.LiveKey})
			return len(r.JSON(t)["deliveries"].([]any)) == 0
		})
	})
}

func statsEqual(a, b map[string]int) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return len(a) == len(b)
}

func grepLines(s, word string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, word) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
