package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// mxFarm starts one SMTP server per destination, each on its own loopback
// address and all on one port (CARTEIRO_DIRECT_PORT), and publishes
// mx.<destination> for each in the server's DNS.
func mxFarm(t *testing.T, ts *testserver.TestServer, port int, destinations ...string) []*testutil.SMTPServer {
	t.Helper()
	var servers []*testutil.SMTPServer
	for i, dest := range destinations {
		ip := "127.0.0." + strconv.Itoa(51+i)
		servers = append(servers, testutil.NewSMTPServer(t, testutil.WithListenAddr(net.JoinHostPort(ip, strconv.Itoa(port)))))
		ts.DNS.SetA("mx."+dest, ip)
	}
	return servers
}

// destinationMetric reads a per-destination metric from /metrics.
func destinationMetric(t *testing.T, ts *testserver.TestServer, name, destination string) (float64, bool) {
	t.Helper()
	r := ts.Do(t, testserver.Request{Method: "GET", Path: "/metrics"})
	testserver.Expect(t, r, 200, "")
	sc := bufio.NewScanner(bytes.NewReader(r.Body))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+`{destination="`+destination+`"} `); ok {
			n, err := strconv.ParseFloat(v, 64)
			testserver.Must(t, err == nil, "metric value %q", v)
			return n, true
		}
	}
	return 0, false
}

// waitDestinationMetric polls a per-destination metric until it equals
// want or 10 s pass, and returns the last value read: the SMTP server
// counts a message when it answers 250, Carteiro when it has read that
// reply and committed the outcome, so the two meet a moment apart.
func waitDestinationMetric(t *testing.T, ts *testserver.TestServer, name, destination string, want float64) (float64, bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		v, ok := destinationMetric(t, ts, name, destination)
		if (ok && v == want) || time.Now().After(deadline) {
			return v, ok
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// D80 end to end: a broadcast over three destinations, one of them
// receiving for three domains, stays within CARTEIRO_DESTINATION_CONNECTIONS
// at every server, carries many transactions per connection, delivers
// every recipient once, and /metrics counts it per destination.
func TestD80BroadcastShapedPerDestination(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		// The first server's port is every exchanger's port.
		first := testutil.NewSMTPServer(t, testutil.WithListenAddr("127.0.0.50:0"))
		const limit = 3
		ts := testserver.StartServer(t, b, map[string]string{
			"CARTEIRO_DELIVERY": "direct", "CARTEIRO_DIRECT_PORT": strconv.Itoa(first.Port()), "CARTEIRO_SMTP_TIMEOUT": "5s",
			"CARTEIRO_DESTINATION_CONNECTIONS": strconv.Itoa(limit), "CARTEIRO_WARMUP": "off", "CARTEIRO_TRACKING": "false",
		})
		d := createDomain(t, ts, ts.LiveKey, "shop.example")
		publish(ts, d)
		testserver.Must(t, verify(t, ts, ts.LiveKey, d.ID).Status == "verified", "domain not verified")
		servers := mxFarm(t, ts, first.Port(), "dest-a.example", "dest-b.example", "dest-c.example")
		domains := map[string]string{"a1.example": "dest-a.example", "a2.example": "dest-a.example", "a3.example": "dest-a.example",
			"b.example": "dest-b.example", "c.example": "dest-c.example"}
		for domain, dest := range domains {
			ts.DNS.SetMX(domain, testutil.MX{Host: "mx." + dest, Pref: 10})
		}
		order := []string{"a1.example", "b.example", "a2.example", "c.example", "a3.example", "b.example", "c.example"}
		// Issue 32's harness: a broadcast to 3,000 recipients over three destinations.
		const audience = 3000
		contacts := make([]map[string]any, audience)
		for i := range contacts {
			contacts[i] = map[string]any{"email": fmt.Sprintf("r%05d@%s", i, order[i%len(order)])}
		}
		aud := newAudience(t, ts, contacts)
		r := broadcastReq(t, ts, ts.LiveKey, "POST", "", map[string]any{"audienceId": aud, "fromEmail": "news@shop.example", "subject": "news", "text": "t"})
		id := r.JSON(t)["id"].(string)
		testserver.Expect(t, broadcastReq(t, ts, ts.LiveKey, "POST", "/"+id+"/send", nil), 202, "")

		received := func() int {
			n := 0
			for _, srv := range servers {
				for _, c := range srv.RecipientCounts() {
					n += c
				}
			}
			return n
		}
		deadline := time.Now().Add(3 * time.Minute)
		for received() < audience && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		got := map[string]int{}
		for _, srv := range servers {
			for rcpt, n := range srv.RecipientCounts() {
				got[rcpt] += n
			}
		}
		for _, c := range contacts {
			testserver.Must(t, got[c["email"].(string)] == 1, "%s received %d time(s), want once", c["email"], got[c["email"].(string)])
		}
		want := map[string]int{}
		for i := range audience {
			want[domains[order[i%len(order)]]]++
		}
		for i, dest := range []string{"dest-a.example", "dest-b.example", "dest-c.example"} {
			srv := servers[i]
			msgs := srv.Messages()
			conns := map[string]int{}
			for _, m := range msgs {
				conns[m.Connection]++
			}
			testserver.Must(t, len(msgs) == want[dest], "%s received %d messages, want %d", dest, len(msgs), want[dest])
			testserver.Must(t, srv.MaxConcurrentConnections() <= limit, "%s had %d connections at once, want at most %d", dest, srv.MaxConcurrentConnections(), limit)
			// 100 transactions per connection; connections idle 5 s close,
			// so a slow machine may need a few more.
			testserver.Must(t, len(conns) <= len(msgs)/100+3*limit, "%s: %d messages over %d connections", dest, len(msgs), len(conns))
			t.Logf("%s: %d messages over %d connections, at most %d at once", dest, len(msgs), len(conns), srv.MaxConcurrentConnections())
			delivered, ok := waitDestinationMetric(t, ts, "carteiro_destination_delivered_total", dest, float64(want[dest]))
			testserver.Must(t, ok && int(delivered) == want[dest], "/metrics delivered for %s: %v (found %v), want %d", dest, delivered, ok, want[dest])
			limitMetric, ok := destinationMetric(t, ts, "carteiro_destination_connection_limit", dest)
			testserver.Must(t, ok && limitMetric == limit, "/metrics connection limit for %s: %v, want %d", dest, limitMetric, limit)
		}
	})
}

// D80 end to end: a destination whose exchanger refuses connections is
// held after 5 failures in a row. Its emails stay queued with one
// delivery_delayed event each and are not tried while held (a D23 retry
// falling in the hold connects to nothing); the other destination is
// delivered meanwhile; once the hold ends the held emails are delivered.
func TestD80RefusingDestinationIsHeldThenDelivers(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		fine := testutil.NewSMTPServer(t, testutil.WithListenAddr("127.0.0.60:0"))
		downAddr := net.JoinHostPort("127.0.0.61", strconv.Itoa(fine.Port()))
		refusing, err := net.Listen("tcp", downAddr)
		testserver.Must(t, err == nil, "listen %s: %v", downAddr, err)
		t.Cleanup(func() { _ = refusing.Close() })
		var tries atomic.Int64
		go func() {
			for {
				conn, err := refusing.Accept()
				if err != nil {
					return
				}
				tries.Add(1)
				_ = conn.Close() // no greeting: a failed connection
			}
		}()
		ts := testserver.StartServer(t, b, map[string]string{
			"CARTEIRO_DELIVERY": "direct", "CARTEIRO_DIRECT_PORT": strconv.Itoa(fine.Port()), "CARTEIRO_SMTP_TIMEOUT": "5s",
			"CARTEIRO_DESTINATION_CONNECTIONS": "2", "CARTEIRO_WARMUP": "off", "CARTEIRO_TRACKING": "false",
		})
		d := createDomain(t, ts, ts.LiveKey, "shop.example")
		publish(ts, d)
		testserver.Must(t, verify(t, ts, ts.LiveKey, d.ID).Status == "verified", "domain not verified")
		ts.DNS.SetMX("down.example", testutil.MX{Host: "mx.down.example", Pref: 10})
		ts.DNS.SetA("mx.down.example", "127.0.0.61")
		ts.DNS.SetMX("fine.example", testutil.MX{Host: "mx.fine.example", Pref: 10})
		ts.DNS.SetA("mx.fine.example", "127.0.0.60")

		const n = 8
		var down, ok []string
		for i := range n {
			down = append(down, send(t, ts, ts.LiveKey, map[string]any{"from": "orders@shop.example", "to": fmt.Sprintf("r%d@down.example", i), "subject": "held", "text": "t"}).ID)
			ok = append(ok, send(t, ts, ts.LiveKey, map[string]any{"from": "orders@shop.example", "to": fmt.Sprintf("r%d@fine.example", i), "subject": "fine", "text": "t"}).ID)
		}
		for _, id := range ok {
			waitStatus(t, ts, ts.LiveKey, id, "delivered")
		}
		for _, id := range down {
			e := waitAttempts(t, ts, ts.LiveKey, id, 1)
			testserver.Must(t, e.Status == "queued", "held email %s: %s", id, e.Status)
		}
		tried := tries.Load()
		// 5 failures in a row, and at most one more already under way
		// (2 connections allowed).
		testserver.Must(t, tried >= 5 && tried <= 6, "%d connection attempts to the refusing destination, want 5 or 6, then the hold", tried)
		held, found := destinationMetric(t, ts, "carteiro_destination_held", "down.example")
		testserver.Must(t, found && held == 1, "/metrics held for down.example: %v (found %v), want 1", held, found)

		// A minute later the D23 retries of the emails that met a failed
		// connection come due, within the hold: they connect to nothing.
		ts.Clock.Advance(61 * time.Second)
		waitFor(t, func() bool {
			for _, id := range down {
				if getEmail(t, ts, ts.LiveKey, id).Attempts >= 2 {
					return true
				}
			}
			return false
		})
		testserver.Must(t, tries.Load() == tried, "%d connection attempts during the hold", tries.Load()-tried)

		// The hold (5 minutes from the frozen clock's start) ends: the held
		// emails were rescheduled for that moment,
		// not for their next D23 step (5 minutes after the 61 s retry), so
		// they are delivered now, each with the one delivery_delayed event
		// of its first deferral.
		// The exchanger comes back at a new address (an A record changed:
		// the cached route expires with the hold, both 5 minutes old); a
		// retry still running from the minute before meets the hold, or the
		// new address, never a gap between two listeners.
		back := testutil.NewSMTPServer(t, testutil.WithListenAddr(net.JoinHostPort("127.0.0.62", strconv.Itoa(fine.Port()))))
		ts.DNS.SetA("mx.down.example", "127.0.0.62")
		ts.Clock.Advance(4 * time.Minute)
		for _, id := range down {
			deadline := time.Now().Add(60 * time.Second)
			e := getEmail(t, ts, ts.LiveKey, id)
			for e.Status != "delivered" && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
				e = getEmail(t, ts, ts.LiveKey, id)
			}
			if e.Status != "delivered" {
				evs := events(t, ts, ts.LiveKey, id)
				for _, ev := range evs {
					t.Logf("event %s %v", ev.Type, ev.Metadata)
				}
				last := ""
				if e.LastError != nil {
					last = *e.LastError
				}
				t.Fatalf("email %s stayed %s after %d attempts, last error %q", id, e.Status, e.Attempts, last)
			}
			evs := events(t, ts, ts.LiveKey, id)
			testserver.Must(t, len(findEvents(evs, "delivery_delayed")) == 1, "email %s timeline %v, want one delivery_delayed", id, eventTypes(evs))
		}
		counts := back.RecipientCounts()
		for i := range n {
			rcpt := fmt.Sprintf("r%d@down.example", i)
			testserver.Must(t, counts[rcpt] == 1, "%s received %d time(s), want once", rcpt, counts[rcpt])
		}
	})
}
