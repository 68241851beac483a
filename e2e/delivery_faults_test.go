package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

func findEvents(evs []timelineEvent, typ string) []timelineEvent {
	var out []timelineEvent
	for _, e := range evs {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// waitAttempts polls until the email has made n delivery attempts and left
// processing.
func waitAttempts(t *testing.T, ts *testserver.TestServer, key, id string, n int) emailJSON {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var e emailJSON
	for time.Now().Before(deadline) {
		e = getEmail(t, ts, key, id)
		if e.Attempts >= n && e.Status != "processing" {
			return e
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("email %s: %d attempts, status %s; want %d attempts", id, e.Attempts, e.Status, n)
	return e
}

func TestMixedRecipientsRetriesAndBounces(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp, _ := relayServer(t, b, nil)
		smtp.Script("grey@customer.example", testutil.Reply{Stage: testutil.StageRcpt, Code: 451, Enhanced: "4.7.1", Message: "greylisted, try later"})
		smtp.Script("gone@customer.example", testutil.Reply{Stage: testutil.StageRcpt, Code: 550, Enhanced: "5.1.1", Message: "no such user"})
		smtp.Script("blocked@customer.example", testutil.Reply{Stage: testutil.StageRcpt, Code: 550, Enhanced: "5.7.1", Message: "rejected by policy"})
		res := send(t, ts, ts.LiveKey, map[string]any{"from": "orders@shop.example", "subject": "mixed", "text": "t",
			"to": []string{"ok@customer.example", "grey@customer.example", "gone@customer.example", "blocked@customer.example"}})

		// First attempt: one delivered, one deferred, two bounced; the email
		// waits for the deferred one (D24).
		e := waitAttempts(t, ts, ts.LiveKey, res.ID, 1)
		testserver.Must(t, e.Status == "queued" && e.BouncedAt != nil && e.DeliveredAt != nil, "after attempt 1: %+v", e)
		testserver.Must(t, e.LastError != nil, "lastError empty")
		evs := events(t, ts, ts.LiveKey, res.ID)
		delayed := findEvents(evs, "delivery_delayed")
		testserver.Must(t, len(delayed) == 1 && delayed[0].Metadata["recipient"] == "grey@customer.example" &&
			delayed[0].Metadata["enhancedCode"] == "4.7.1", "delivery_delayed %+v", delayed)
		bounced := findEvents(evs, "bounced")
		testserver.Must(t, len(bounced) == 2, "bounced events %+v", bounced)
		byRcpt := map[string]map[string]any{}
		for _, ev := range bounced {
			byRcpt[ev.Metadata["recipient"].(string)] = ev.Metadata
		}
		hard, block := byRcpt["gone@customer.example"], byRcpt["blocked@customer.example"]
		testserver.Must(t, hard["bounceType"] == "hard" && hard["code"] == float64(550) && hard["enhancedCode"] == "5.1.1" &&
			strings.Contains(hard["diagnostic"].(string), "no such user"), "hard bounce %v", hard)
		testserver.Must(t, block["bounceType"] == "block" && block["enhancedCode"] == "5.7.1", "block %v", block)

		// The retry comes 1 minute later (D23) and only for the deferred one.
		ts.Clock.Advance(61 * time.Second)
		e = waitAttempts(t, ts, ts.LiveKey, res.ID, 2)
		testserver.Must(t, e.Status == "bounced", "final status %s, want bounced (D24)", e.Status)
		msgs := smtp.Messages()
		testserver.Must(t, len(msgs) == 2 && slices.Equal(msgs[1].To, []string{"grey@customer.example"}), "second attempt envelope: %v", msgs)
		evs = events(t, ts, ts.LiveKey, res.ID)
		testserver.Must(t, len(findEvents(evs, "processing")) == 2 && len(findEvents(evs, "delivery_delayed")) == 1, "timeline %v", eventTypes(evs))
		testserver.Must(t, smtp.Attempts("grey@customer.example") == 2, "grey attempts %d", smtp.Attempts("grey@customer.example"))
	})
}

func TestConnectionFaultsAreRetried(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp, _ := relayServer(t, b, nil)
		// Dropped in the middle of DATA: nothing accepted, everything retried.
		smtp.SetDropDuringData(true)
		res := send(t, ts, ts.LiveKey, map[string]any{"from": "orders@shop.example", "to": "a@customer.example", "subject": "drop", "text": strings.Repeat("x", 5000)})
		e := waitAttempts(t, ts, ts.LiveKey, res.ID, 1)
		testserver.Must(t, e.Status == "queued" && e.LastError != nil, "after a drop: %+v", e)
		smtp.SetDropDuringData(false)
		ts.Clock.Advance(61 * time.Second)
		e = waitAttempts(t, ts, ts.LiveKey, res.ID, 2)
		testserver.Must(t, e.Status == "delivered", "after retry: %s", e.Status)

		// A server that stalls past the timeout (2 s, 4 s for the reply to DATA).
		smtp.SetStall(testutil.StageData, 8*time.Second)
		res = send(t, ts, ts.LiveKey, map[string]any{"from": "orders@shop.example", "to": "b@customer.example", "subject": "stall", "text": "t"})
		e = waitAttempts(t, ts, ts.LiveKey, res.ID, 1)
		testserver.Must(t, e.Status == "queued" && e.LastError != nil, "after a stall: %+v", e)
		smtp.SetStall(testutil.StageData, 0)
	})
}

func TestRetryWindowEndsInFailure(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp, _ := relayServer(t, b, nil)
		replies := make([]testutil.Reply, 20)
		for i := range replies {
			replies[i] = testutil.Reply{Stage: testutil.StageRcpt, Code: 452, Enhanced: "4.2.2", Message: "mailbox full"}
		}
		smtp.Script("full@customer.example", replies...)
		res := send(t, ts, ts.LiveKey, map[string]any{"from": "orders@shop.example", "to": "full@customer.example", "subject": "full", "text": "t"})
		waitAttempts(t, ts, ts.LiveKey, res.ID, 1)
		// Walk the schedule: 1, 5, 15, 30 minutes, then hourly (D23).
		for i, step := range []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour} {
			ts.Clock.Advance(step - time.Second)
			time.Sleep(150 * time.Millisecond)
			testserver.Must(t, getEmail(t, ts, ts.LiveKey, res.ID).Attempts == i+1, "retried before its time (step %d)", i)
			ts.Clock.Advance(2 * time.Second)
			waitAttempts(t, ts, ts.LiveKey, res.ID, i+2)
		}
		// Past 72 hours the next attempt is the last: failed.
		ts.Clock.Advance(72 * time.Hour)
		e := waitStatus(t, ts, ts.LiveKey, res.ID, "failed")
		testserver.Must(t, e.FailedAt != nil && strings.Contains(*e.LastError, "4.2.2"), "failed email %+v", e)
		evs := events(t, ts, ts.LiveKey, res.ID)
		failed := findEvents(evs, "failed")
		testserver.Must(t, len(failed) == 1 && failed[0].Metadata["recipient"] == "full@customer.example", "failed events %+v", failed)
		testserver.Must(t, len(findEvents(evs, "delivery_delayed")) == 1, "delivery_delayed must come once")
	})
}
