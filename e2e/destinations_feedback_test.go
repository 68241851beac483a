package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// sendBroadcastTo sends a text broadcast from news@shop.example to a new
// audience of recipients.
func sendBroadcastTo(t *testing.T, ts *testserver.TestServer, recipients []string) {
	t.Helper()
	contacts := make([]map[string]any, len(recipients))
	for i, rcpt := range recipients {
		contacts[i] = map[string]any{"email": rcpt}
	}
	aud := newAudience(t, ts, contacts)
	r := broadcastReq(t, ts, ts.LiveKey, "POST", "", map[string]any{"audienceId": aud, "fromEmail": "news@shop.example", "subject": "news", "text": "t"})
	testserver.Expect(t, r, 201, "")
	testserver.Expect(t, broadcastReq(t, ts, ts.LiveKey, "POST", "/"+r.JSON(t)["id"].(string)+"/send", nil), 202, "")
}

// recipientsOf makes n addresses at domain, prefix0000@domain and on.
func recipientsOf(n int, prefix, domain string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%04d@%s", prefix, i, domain)
	}
	return out
}

// waitReceivedOnce waits until srv received every recipient, then checks
// that it received each exactly once.
func waitReceivedOnce(t *testing.T, srv *testutil.SMTPServer, recipients []string) {
	t.Helper()
	waitReceivedOnceAdvancing(t, srv, recipients, nil)
}

// waitReceivedOnceAdvancing is waitReceivedOnce that, when clock is set,
// moves it on a minute every 5 s of waiting, so an email whose retry was
// deferred once more comes due too. Seen in CI on a quiet machine: one
// email of the relay test was deferred again after the clock's move and
// waited for a retry a minute past the frozen clock.
func waitReceivedOnceAdvancing(t *testing.T, srv *testutil.SMTPServer, recipients []string, clock *testutil.Clock) {
	t.Helper()
	// Twice waitFor's minute: the retries come due after a moved clock,
	// which waits for River's leader (see waitFor) on a loaded machine.
	deadline := time.Now().Add(2 * time.Minute)
	nextMove := time.Now().Add(5 * time.Second)
	got := srv.RecipientCounts()
	for len(got) < len(recipients) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		if clock != nil && time.Now().After(nextMove) {
			clock.Advance(61 * time.Second)
			nextMove = time.Now().Add(5 * time.Second)
		}
		got = srv.RecipientCounts()
	}
	for _, rcpt := range recipients {
		testserver.Must(t, got[rcpt] == 1, "%s received %d time(s), want once", rcpt, got[rcpt])
	}
	testserver.Must(t, len(got) == len(recipients), "the server received %d distinct recipients, want %d", len(got), len(recipients))
}

// waitFirstPass waits until every one of n single-recipient emails made
// its first attempt at a throttling server: each attempt is one MAIL,
// accepted or answered 421 (the clock is frozen, so no retry is due yet).
func waitFirstPass(t *testing.T, srv *testutil.SMTPServer, n int) {
	t.Helper()
	waitFor(t, func() bool { return len(srv.Messages())+srv.Throttled() >= n })
}

// D80 end to end, on one server per store: the shaping file's limits
// replace CARTEIRO_DESTINATION_CONNECTIONS for its destination only, and
// a destination answering 421 is given fewer connections, loses and
// duplicates nothing, and is delivered once it relents.
func TestD80DirectShapingAndSlowDown(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		// Every exchanger listens on the first one's port, on its own
		// loopback address; they stall at DATA so deliveries overlap and
		// the connection limits are reached.
		stall := testutil.StallAfter(testutil.StageData, 30*time.Millisecond)
		shaped := testutil.NewSMTPServer(t, testutil.WithListenAddr("127.0.0.70:0"), stall)
		port := strconv.Itoa(shaped.Port())
		free := testutil.NewSMTPServer(t, testutil.WithListenAddr("127.0.0.71:"+port), stall)
		slow := testutil.NewSMTPServer(t, testutil.WithListenAddr("127.0.0.72:"+port), stall)

		const limit = 6
		shaping := filepath.Join(t.TempDir(), "shaping.yaml")
		err := os.WriteFile(shaping, []byte("destinations:\n  shaped.example:\n    connections: 2\n    transactions_per_connection: 5\n"), 0o600)
		testserver.Must(t, err == nil, "write shaping file: %v", err)
		ts := testserver.StartServer(t, b, map[string]string{
			"CARTEIRO_DELIVERY": "direct", "CARTEIRO_DIRECT_PORT": port, "CARTEIRO_SMTP_TIMEOUT": "5s",
			"CARTEIRO_DESTINATION_CONNECTIONS": strconv.Itoa(limit), "CARTEIRO_SHAPING_FILE": shaping,
			"CARTEIRO_WARMUP": "off", "CARTEIRO_TRACKING": "false",
		})
		d := createDomain(t, ts, ts.LiveKey, "shop.example")
		publish(ts, d)
		testserver.Must(t, verify(t, ts, ts.LiveKey, d.ID).Status == "verified", "domain not verified")
		for i, dest := range []string{"shaped.example", "free.example", "slow.example"} {
			ts.DNS.SetA("mx."+dest, "127.0.0."+strconv.Itoa(70+i))
			ts.DNS.SetMX("to."+dest, testutil.MX{Host: "mx." + dest, Pref: 10})
		}

		t.Run("shaping file", func(t *testing.T) {
			toShaped, toFree := recipientsOf(60, "s", "to.shaped.example"), recipientsOf(60, "f", "to.free.example")
			sendBroadcastTo(t, ts, append(append([]string{}, toShaped...), toFree...))
			waitReceivedOnce(t, shaped, toShaped)
			waitReceivedOnce(t, free, toFree)

			testserver.Must(t, shaped.MaxConcurrentConnections() <= 2, "shaped destination: %d connections at once, want at most the file's 2", shaped.MaxConcurrentConnections())
			for conn, n := range transactionsPerConnectionAt(shaped) {
				testserver.Must(t, n <= 5, "shaped destination: connection %s carried %d transactions, want at most the file's 5", conn, n)
			}
			most := 0
			for _, n := range transactionsPerConnectionAt(free) {
				most = max(most, n)
			}
			got := free.MaxConcurrentConnections()
			testserver.Must(t, got > 2 && got <= limit, "other destination: %d connections at once, want the default limit (more than 2, at most %d)", got, limit)
			testserver.Must(t, most > 5, "other destination: at most %d transactions per connection, want the default (beyond 5)", most)
			shapedLimit, _ := destinationMetric(t, ts, "carteiro_destination_connection_limit", "shaped.example")
			freeLimit, _ := destinationMetric(t, ts, "carteiro_destination_connection_limit", "free.example")
			testserver.Must(t, shapedLimit == 2 && freeLimit == limit, "/metrics connection limits: shaped %v, free %v; want 2 and %d", shapedLimit, freeLimit, limit)
			t.Logf("shaped: at most %d connections at once; free: at most %d, up to %d transactions on one", shaped.MaxConcurrentConnections(), got, most)
		})

		t.Run("421 slows down", func(t *testing.T) {
			// A provider limiting the sender: 20 messages, then 421 to every
			// MAIL until it relents.
			slow.SetThrottle(20, time.Hour)
			recipients := recipientsOf(120, "r", "to.slow.example")
			sendBroadcastTo(t, ts, recipients)
			waitFirstPass(t, slow, len(recipients))
			before := slow.MaxConcurrentConnections()
			testserver.Must(t, slow.Throttled() > 0 && len(slow.Messages()) < len(recipients), "the server refused %d MAILs: the test provoked no 421", slow.Throttled())
			halved, _ := destinationMetric(t, ts, "carteiro_destination_connection_limit", "slow.example")
			testserver.Must(t, halved < limit, "/metrics connection limit after 421s: %v, want below %d", halved, limit)

			// The server relents; the deferred emails' D23 retry comes due
			// (a minute, which also earns the limit back by one).
			slow.SetThrottle(0, 0)
			// The connections answered 421 are closed: count from when the
			// server has seen them go.
			waitFor(t, func() bool { return slow.OpenConnections() <= int(halved) })
			slow.ResetMaxConcurrent()
			ts.Clock.Advance(61 * time.Second)
			waitReceivedOnce(t, slow, recipients)
			after := slow.MaxConcurrentConnections()
			testserver.Must(t, after <= int(halved)+1 && after < limit, "the retries used %d connections at once after the 421s, want at most the halved limit %v plus the one earned back, below %d", after, halved, limit)
			delivered, _ := waitDestinationMetric(t, ts, "carteiro_destination_delivered_total", "slow.example", float64(len(recipients)))
			testserver.Must(t, int(delivered) == len(recipients), "/metrics delivered to slow.example: %v, want %d", delivered, len(recipients))
			t.Logf("before the 421s: %d connections at once; limit halved to %v; the retries used %d at once; %d MAILs refused", before, halved, after, slow.Throttled())
		})
	})
}

// transactionsPerConnectionAt counts the messages each connection to srv
// carried.
func transactionsPerConnectionAt(srv *testutil.SMTPServer) map[string]int {
	out := map[string]int{}
	for _, m := range srv.Messages() {
		out[m.Connection]++
	}
	return out
}

// D80 end to end: the relay is one destination with the same feedback. A
// relay answering 421 makes Carteiro use fewer connections to it (observed
// at the relay), and every email is delivered once, and only once, after
// it relents.
func TestD80RelaySlowsDownOn421(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		relay := testutil.NewSMTPServer(t, testutil.StallAfter(testutil.StageData, 30*time.Millisecond))
		const size = 8
		ts, _ := relayServerTo(t, b, relay, map[string]string{
			"CARTEIRO_RELAY_POOL_SIZE": strconv.Itoa(size), "CARTEIRO_WARMUP": "off", "CARTEIRO_TRACKING": "false",
		})
		relay.SetThrottle(20, time.Hour)
		start := time.Now()
		recipients := recipientsOf(120, "r", "customer.example")
		sendBroadcastTo(t, ts, recipients)
		waitFirstPass(t, relay, len(recipients))
		before := relay.MaxConcurrentConnections()
		testserver.Must(t, relay.Throttled() > 0 && len(relay.Messages()) < len(recipients), "the relay refused %d MAILs: the test provoked no 421", relay.Throttled())

		relay.SetThrottle(0, 0)
		// The pool's bound is at most half the size now; the connections
		// answered 421 are closed: count from when the relay has seen them go.
		waitFor(t, func() bool { return relay.OpenConnections() <= size/2 })
		relay.ResetMaxConcurrent()
		ts.Clock.Advance(61 * time.Second) // the D23 retry of the deferred emails
		waitReceivedOnceAdvancing(t, relay, recipients, ts.Clock)
		after := relay.MaxConcurrentConnections()
		// The bound grows back by one per minute (real time, for the relay).
		regained := int(time.Since(start) / time.Minute)
		testserver.Must(t, after < size && after <= size/2+regained, "the retries used %d connections at once after the 421s, want at most %d (half the pool, plus %d earned back)", after, size/2+regained, regained)
		t.Logf("before the 421s: %d connections at once; the retries used %d at once; %d MAILs refused", before, after, relay.Throttled())
	})
}
