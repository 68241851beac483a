package e2e

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// directServer delivers straight to MX hosts that the test DNS points at
// the in-process SMTP server (D3).
func directServer(t *testing.T, b testserver.Backend) (*testserver.TestServer, *testutil.SMTPServer) {
	t.Helper()
	smtp := testutil.NewSMTPServer(t)
	ts := testserver.StartServer(t, b, map[string]string{
		"CARTEIRO_DELIVERY": "direct", "CARTEIRO_DIRECT_PORT": strconv.Itoa(smtp.Port()), "CARTEIRO_SMTP_TIMEOUT": "2s",
	})
	d := createDomain(t, ts, ts.LiveKey, "shop.example")
	publish(ts, d)
	testserver.Must(t, verify(t, ts, ts.LiveKey, d.ID).Status == "verified", "domain not verified")
	return ts, smtp
}

func TestDirectDeliveryByMX(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp := directServer(t, b)
		// The preferred MX has no address; the second answers.
		ts.DNS.SetMX("customer.example", testutil.MX{Host: "mx1.customer.example", Pref: 5}, testutil.MX{Host: "mx2.customer.example", Pref: 10})
		ts.DNS.SetA("mx2.customer.example", "127.0.0.1")
		ts.DNS.SetMX("other.example", testutil.MX{Host: "mx.other.example", Pref: 10})
		ts.DNS.SetA("mx.other.example", "127.0.0.1")
		res := send(t, ts, ts.LiveKey, map[string]any{"from": "orders@shop.example", "subject": "direct", "text": "t",
			"to": []string{"a@customer.example", "b@customer.example", "c@other.example"}})
		e := waitStatus(t, ts, ts.LiveKey, res.ID, "delivered")
		testserver.Must(t, e.Attempts == 1 && e.DeliveredAt != nil, "email %+v", e)
		// One connection per destination domain, carrying one transaction
		// per recipient, each with its own return path (D65) and the same
		// signed bytes.
		msgs := smtp.Messages()
		testserver.Must(t, len(msgs) == 3, "want 3 SMTP transactions, got %d", len(msgs))
		testserver.Must(t, smtp.Connections() == 2, "want 2 connections, got %d", smtp.Connections())
		paths := map[string]bool{}
		for _, m := range msgs {
			testserver.Must(t, len(m.To) == 1 && strings.HasPrefix(m.From, "bounces+"), "transaction %v from %s", m.To, m.From)
			testserver.Must(t, string(m.Data) == string(msgs[0].Data), "the recipients received different bytes")
			paths[m.From] = true
		}
		testserver.Must(t, len(paths) == 3, "return paths %v, want one per recipient", paths)
		evs := events(t, ts, ts.LiveKey, res.ID)
		for _, ev := range findEvents(evs, "sent") {
			mx, _ := ev.Metadata["mx"].(string)
			testserver.Must(t, mx == "mx2.customer.example" || mx == "mx.other.example", "sent via %q", mx)
		}
		testserver.Must(t, len(findEvents(evs, "delivered")) == 3, "direct: the MX's 250 is delivery (D25): %v", eventTypes(evs))
		verifyDKIM(t, ts, msgs[0].Data)

		// A domain with a null MX bounces at once.
		ts.DNS.SetMX("nomail.example", testutil.MX{Host: ".", Pref: 0})
		res = send(t, ts, ts.LiveKey, map[string]any{"from": "orders@shop.example", "to": "x@nomail.example", "subject": "s", "text": "t"})
		waitStatus(t, ts, ts.LiveKey, res.ID, "bounced")
	})
}

func TestWarmupQuota(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, _ := directServer(t, b)
		ts.DNS.SetMX("customer.example", testutil.MX{Host: "mx.customer.example", Pref: 10})
		ts.DNS.SetA("mx.customer.example", "127.0.0.1")
		var domainID string
		r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains", Key: ts.LiveKey})
		domainID = r.JSON(t)["domains"].([]any)[0].(map[string]any)["id"].(string)
		warmup := func() map[string]any {
			r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains/" + domainID + "/warmup", Key: ts.LiveKey})
			testserver.Expect(t, r, 200, "")
			return r.JSON(t)
		}
		w := warmup()
		testserver.Must(t, w["currentDay"] == float64(1) && w["dailyQuota"] == float64(50) && w["sentToday"] == float64(0), "day 1: %v", w)

		// Day 1 allows 50 (D34): 45 in a batch, 2 singles, a batch of 5 of
		// which 3 fit, then 429.
		item := map[string]any{"from": "orders@shop.example", "to": "a@customer.example", "subject": "w", "text": "t"}
		batchOf := func(n int) []any {
			batch := make([]any, n)
			for i := range batch {
				batch[i] = item
			}
			return batch
		}
		sendBatch := func(n int) (accepted, refused int) {
			r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/batch", Key: ts.LiveKey, Body: batchOf(n)})
			testserver.Expect(t, r, 202, "")
			return strings.Count(string(r.Body), `"ok":true`), strings.Count(string(r.Body), "WARMUP_QUOTA_EXCEEDED")
		}
		accepted, refused := sendBatch(45)
		testserver.Must(t, accepted == 45 && refused == 0, "first batch: %d accepted, %d refused", accepted, refused)
		for i := 0; i < 2; i++ {
			send(t, ts, ts.LiveKey, item)
		}
		accepted, refused = sendBatch(5)
		testserver.Must(t, accepted == 3 && refused == 2, "batch at the quota: %d accepted, %d refused; want 3 and 2", accepted, refused)
		r = ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails", Key: ts.LiveKey, Body: item})
		testserver.Expect(t, r, http.StatusTooManyRequests, "WARMUP_QUOTA_EXCEEDED")
		details := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)
		testserver.Must(t, details["domainId"] == domainID && details["dailyQuota"] == float64(50) && details["resetAt"] != nil, "details %v", details)
		w = warmup()
		testserver.Must(t, w["sentToday"] == float64(50) && w["remainingToday"] == float64(0) && w["quotaUsedPercent"] == float64(100), "after 50: %v", w)

		// Test mode does not count (D7).
		send(t, ts, ts.TestKey, item)

		// The next UTC day allows 100.
		now := ts.Clock.Now()
		ts.Clock.Set(time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 1, 0, time.UTC).Add(24 * time.Hour))
		send(t, ts, ts.LiveKey, item)
		w = warmup()
		testserver.Must(t, w["currentDay"] == float64(2) && w["dailyQuota"] == float64(100) && w["sentToday"] == float64(1), "day 2: %v", w)
		testserver.Must(t, w["lastSendDate"] == ts.Clock.Now().Format(time.DateOnly), "lastSendDate %v", w["lastSendDate"])

		// Concurrent batches share the day's room: 4 batches of 30 at once
		// get exactly the 99 left, however their transactions interleave.
		answers := make([]*testserver.Response, 4)
		var wg sync.WaitGroup
		for i := range answers {
			wg.Go(func() {
				answers[i] = ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/batch", Key: ts.LiveKey, Body: batchOf(30)})
			})
		}
		wg.Wait()
		total := 0
		for _, r := range answers {
			testserver.Expect(t, r, 202, "")
			total += strings.Count(string(r.Body), `"ok":true`)
		}
		w = warmup()
		testserver.Must(t, total == 99 && w["sentToday"] == float64(100), "concurrent batches: %d accepted, warmup %v; want 99 and 100 sent", total, w)

		// After day 15 the domain is warmed: unlimited, dailyQuota 0.
		ts.Clock.Advance(20 * 24 * time.Hour)
		w = warmup()
		testserver.Must(t, w["dailyQuota"] == float64(0), "warmed: %v", w)
	})
}
