package e2e

import (
	"net/http"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

type emailJSON struct {
	ID             string   `json:"id"`
	From           string   `json:"from"`
	To             []string `json:"to"`
	Cc             []string `json:"cc"`
	Bcc            []string `json:"bcc"`
	Subject        *string  `json:"subject"`
	Status         string   `json:"status"`
	Attempts       int      `json:"attempts"`
	LastError      *string  `json:"lastError"`
	MessageID      *string  `json:"messageId"`
	CreatedAt      string   `json:"createdAt"`
	SentAt         *string  `json:"sentAt"`
	DeliveredAt    *string  `json:"deliveredAt"`
	BouncedAt      *string  `json:"bouncedAt"`
	FailedAt       *string  `json:"failedAt"`
	ComplainedAt   *string  `json:"complainedAt"`
	SuppressedAt   *string  `json:"suppressedAt"`
	OpenedAt       *string  `json:"openedAt"`
	FirstClickedAt *string  `json:"firstClickedAt"`
	OpenCount      int      `json:"openCount"`
	ClickCount     int      `json:"clickCount"`
	Tags           []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"tags"`
	HTML   *string `json:"html"`
	Text   *string `json:"text"`
	APIKey *struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"apiKey"`
}

type timelineEvent struct {
	Type      string         `json:"type"`
	Timestamp string         `json:"timestamp"`
	Metadata  map[string]any `json:"metadata"`
}

type sendResult struct {
	ID       string `json:"id"`
	Status   string `json:"status"`
	QueuedAt string `json:"queuedAt"`
}

func send(t *testing.T, ts *testserver.TestServer, key string, body any) sendResult {
	t.Helper()
	r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails", Key: key, Body: body})
	testserver.Expect(t, r, http.StatusAccepted, "")
	var res sendResult
	r.Decode(t, &res)
	return res
}

func getEmail(t *testing.T, ts *testserver.TestServer, key, id string) emailJSON {
	t.Helper()
	r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails/" + id, Key: key})
	testserver.Expect(t, r, http.StatusOK, "")
	var e emailJSON
	r.Decode(t, &e)
	return e
}

func events(t *testing.T, ts *testserver.TestServer, key, id string) []timelineEvent {
	t.Helper()
	r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails/" + id + "/events", Key: key})
	testserver.Expect(t, r, http.StatusOK, "")
	var body struct {
		ID     string          `json:"id"`
		Events []timelineEvent `json:"events"`
	}
	r.Decode(t, &body)
	testserver.Must(t, body.ID == id, "events id %s, want %s", body.ID, id)
	return body.Events
}

func eventTypes(evs []timelineEvent) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

// waitStatus polls until the email reaches one of the statuses.
func waitStatus(t *testing.T, ts *testserver.TestServer, key, id string, statuses ...string) emailJSON {
	t.Helper()
	// As long as waitFor: a retry after a moved clock waits for River's
	// leader and scheduler.
	deadline := time.Now().Add(60 * time.Second)
	var e emailJSON
	for time.Now().Before(deadline) {
		e = getEmail(t, ts, key, id)
		for _, s := range statuses {
			if e.Status == s {
				return e
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("email %s stayed %s, want one of %v", id, e.Status, statuses)
	return e
}

// waitFor polls cond for up to 60 seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	// 60 s: a River job due after a moved clock runs only once River has a
	// leader again (moving the clock ends the leader's term; re-election
	// runs every 5 to 6 s) and its scheduler's next pass (every 5 s) has
	// made it available. On the 2-core CI machines, with both stores' tests
	// and the other packages' -race tests running, that has taken over 15 s
	// on one machine and over 30 s on a slower one. When a move strands
	// River without a leader, the harness's watchdog (testserver,
	// leaderwatch.go) restores one within about 20 s.
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("condition not met in 60 s")
}
