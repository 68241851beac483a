package testserver

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// TestLeaderWatchRestoresScheduler strands River without a leader the way a
// moved clock can (a leader row that the frozen clock never expires) and
// checks that a scheduled email made due by the clock is still delivered:
// without the watchdog it waits for ever.
func TestLeaderWatchRestoresScheduler(t *testing.T) {
	ForEachBackend(t, func(t *testing.T, b Backend) {
		ts := StartServer(t, b, nil)
		w := &leaderWatch{url: ts.Config.DatabaseURL}
		db := w.open()
		Must(t, db != nil, "open the test database")
		defer db.close()
		strandLeader(t, db, ts.Clock.Now().Add(365*24*time.Hour))
		// The leader notices at its next re-election, within 6 s, that the
		// row is not its own and steps down; until then its scheduler runs.
		time.Sleep(7 * time.Second)

		at := ts.Clock.Now().Add(time.Minute).Format(time.RFC3339)
		r := ts.Do(t, Request{Method: "POST", Path: "/v1/product/emails", Key: ts.TestKey,
			Body: map[string]any{"from": "a@x.example", "to": "b@y.example", "subject": "later", "text": "t", "scheduledAt": at}})
		Expect(t, r, http.StatusAccepted, "")
		id, _ := r.JSON(t)["id"].(string)
		ts.Clock.Advance(2 * time.Minute)

		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			r = ts.Do(t, Request{Method: "GET", Path: "/v1/product/emails/" + id, Key: ts.TestKey})
			if r.JSON(t)["status"] == "delivered" {
				return
			}
			time.Sleep(250 * time.Millisecond)
		}
		t.Fatalf("the scheduled email was not delivered within 60 s of being due: %s", r.Body)
	})
}

// strandLeader replaces River's leader row with one held by a client that
// does not exist, valid until expires. One upsert, not a delete and an
// insert: the real leader re-inserts its row whenever it finds none, and
// did so between the two (duplicate key).
func strandLeader(t *testing.T, db *watchDB, expires time.Time) {
	t.Helper()
	ctx := context.Background()
	var err error
	if db.sqlite != nil {
		const format = "2006-01-02 15:04:05.000"
		_, err = db.sqlite.ExecContext(ctx, `INSERT INTO river_leader (name, leader_id, elected_at, expires_at) VALUES ('default', 'ghost', ?, ?)
			ON CONFLICT (name) DO UPDATE SET leader_id = excluded.leader_id, elected_at = excluded.elected_at, expires_at = excluded.expires_at`,
			expires.Add(-time.Hour).UTC().Format(format), expires.UTC().Format(format))
	} else {
		_, err = db.pg.Exec(ctx, `INSERT INTO river_leader (name, leader_id, elected_at, expires_at) VALUES ('default', 'ghost', $1, $2)
			ON CONFLICT (name) DO UPDATE SET leader_id = excluded.leader_id, elected_at = excluded.elected_at, expires_at = excluded.expires_at`,
			expires.Add(-time.Hour), expires)
	}
	if err != nil {
		t.Fatalf("strand the leader: %v", err)
	}
}
