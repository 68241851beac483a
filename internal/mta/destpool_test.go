package mta

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testutil"
)

// farmContext bounds a farm test well below the test binary's timeout.
func farmContext(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// recipientsAt makes n recipients spread over domains.
func recipientsAt(n int, domains ...string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("r%d@%s", i, domains[i%len(domains)])
	}
	return out
}

// D80: a broadcast over three destinations (one of them hosting three
// domains) never has more than the connection limit open at any server,
// reuses its connections for many transactions, and delivers everything
// exactly once.
func TestDirectBroadcastKeepsEachDestinationWithinItsConnections(t *testing.T) {
	t.Parallel()
	farm := newMXFarm(t, 3)
	farm.addDomains(0, "a1.test", "a2.test", "a3.test")
	farm.addDomains(1, "b.test")
	farm.addDomains(2, "c.test")
	const limit = 4
	direct := farm.direct(t, DirectOptions{Connections: limit})

	recipients := recipientsAt(3000, "a1.test", "b.test", "a2.test", "c.test", "a3.test", "b.test", "c.test")
	results, deferred := deliverAll(farmContext(t, 50*time.Second), direct, recipients, 40, true, 10*time.Millisecond)
	assertEachOnce(t, results, recipients, farm.servers...)
	if deferred != 0 {
		t.Errorf("%d attempts were deferred, want none", deferred)
	}
	for i, srv := range farm.servers {
		if got := srv.MaxConcurrentConnections(); got > limit {
			t.Errorf("destination %d: %d connections at once, want at most %d", i, got, limit)
		}
		perConn := transactionsPerConnection(srv)
		messages := len(srv.Messages())
		// 100 transactions per connection, and a few more connections
		// for those retired early by the idle timer or the janitor.
		if want := messages/DefaultTransactionsPerConnection + 2*limit; len(perConn) > want {
			t.Errorf("destination %d: %d messages over %d connections, want at most %d connections", i, messages, len(perConn), want)
		}
		for conn, n := range perConn {
			if n > DefaultTransactionsPerConnection {
				t.Errorf("destination %d: connection %s carried %d transactions, want at most %d", i, conn, n, DefaultTransactionsPerConnection)
			}
		}
	}
	if s := destStats(direct, "dest-0.test"); s.Delivered != int64(len(farm.servers[0].Messages())) {
		t.Errorf("dest-0.test stats %+v, want delivered = %d", s, len(farm.servers[0].Messages()))
	}
}

// D80: a provider answering 421 once it took N messages in a window makes
// the destination's concurrency drop (as the server sees it); nothing is
// lost or received twice, and delivery completes once the server relents.
func TestDirectSlowsDownOn421AndCompletes(t *testing.T) {
	t.Parallel()
	farm := newMXFarm(t, 1, testutil.StallAfter(testutil.StageData, 20*time.Millisecond))
	farm.addDomains(0, "slow.test")
	srv := farm.servers[0]
	srv.SetThrottle(30, time.Second)
	const limit = 8
	direct := farm.direct(t, DirectOptions{Connections: limit})

	// Observe the connections open at the server once the first 421 has
	// had time to act (the in-flight transactions of the connections
	// beyond the new limit end, and those close).
	var observedMax int
	observed := make(chan struct{})
	ctx := farmContext(t, 50*time.Second)
	go func() {
		defer close(observed)
		for srv.Throttled() == 0 {
			if ctx.Err() != nil {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(300 * time.Millisecond)
		srv.ResetMaxConcurrent()
		time.Sleep(time.Second)
		observedMax = srv.MaxConcurrentConnections()
	}()
	recipients := recipientsAt(150, "slow.test")
	results, deferred := deliverAll(ctx, direct, recipients, 24, false, 50*time.Millisecond)
	<-observed

	assertEachOnce(t, results, recipients, srv)
	if srv.Throttled() == 0 || deferred == 0 {
		t.Fatalf("the server throttled %d MAILs and %d attempts were deferred: the test did not provoke 421", srv.Throttled(), deferred)
	}
	if observedMax >= limit || observedMax == 0 {
		t.Errorf("after the 421, the server saw up to %d connections at once, want fewer than %d", observedMax, limit)
	}
	if s := destStats(direct, "dest-0.test"); s.Limit >= limit {
		t.Errorf("destination limit %d after 421s, want below %d", s.Limit, limit)
	}
}

// D80: a destination refusing connections is held after 5 failures in a
// row (its deliveries deferred until the hold ends, without trying it),
// the other destinations are not slowed, and the held emails deliver
// once the hold ends and the server is back.
func TestDirectHoldsARefusingDestination(t *testing.T) {
	t.Parallel()
	farm := newMXFarm(t, 1)
	farm.addDomains(0, "fine.test")
	// Destination 1 accepts connections and closes them at once, before
	// any greeting: every attempt is a connection failure.
	refusingAddr := net.JoinHostPort(farmIP(1), fmt.Sprint(farm.port))
	refusing, err := net.Listen("tcp", refusingAddr)
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	var (
		attemptsMu sync.Mutex
		attempts   int
	)
	go func() {
		for {
			conn, err := refusing.Accept()
			if err != nil {
				return
			}
			attemptsMu.Lock()
			attempts++
			attemptsMu.Unlock()
			_ = conn.Close()
		}
	}()
	farm.dns.SetA("mx."+farmDestination(1), farmIP(1))
	farm.addDomains(1, "down.test")
	const hold = 2 * time.Second
	direct := farm.direct(t, DirectOptions{Connections: 3, HoldDuration: hold})

	ctx := farmContext(t, 30*time.Second)
	down := recipientsAt(40, "down.test")
	fine := recipientsAt(200, "fine.test")
	data := []byte("Subject: hold\r\n\r\nhello\r\n")
	var (
		mu       sync.Mutex
		downRes  = map[string]Result{}
		fineDone time.Duration
		wg       sync.WaitGroup
	)
	start := time.Now()
	for _, rcpt := range down {
		wg.Go(func() {
			r := direct.Deliver(ctx, Envelope{From: "s@example.com", Recipients: []string{rcpt}}, data)[0]
			mu.Lock()
			downRes[rcpt] = r
			mu.Unlock()
		})
	}
	fineRes, fineDeferred := deliverAll(ctx, direct, fine, 8, false, 10*time.Millisecond)
	fineDone = time.Since(start)
	wg.Wait()

	assertEachOnce(t, fineRes, fine, farm.servers[0])
	if fineDeferred != 0 {
		t.Errorf("%d deliveries to the working destination were deferred", fineDeferred)
	}
	held := 0
	for rcpt, r := range downRes {
		if r.Class != ClassTemporary {
			t.Errorf("%s: %+v, want temporary", rcpt, r)
		}
		if !r.RetryAt.IsZero() {
			held++
			if !strings.Contains(r.Message, "held") || r.RetryAt.Before(start.Add(hold)) {
				t.Errorf("%s: %+v, want held until the hold ends", rcpt, r)
			}
		}
	}
	attemptsMu.Lock()
	tried := attempts
	attemptsMu.Unlock()
	// The 5 failures in a row, plus those already under way when the hold
	// began (at most one per connection allowed).
	if held == 0 || tried > holdAfterFailures+3 {
		t.Errorf("%d of %d deliveries held after %d connection attempts, want held after %d failures", held, len(down), tried, holdAfterFailures)
	}
	if s := destStats(direct, "dest-1.test"); !s.Held {
		t.Errorf("dest-1.test stats %+v, want held", s)
	}
	if fineDone >= hold {
		t.Logf("note: the working destination took %s (machine under load)", fineDone)
	}

	// The server comes back; the held emails deliver after the hold.
	_ = refusing.Close()
	back := testutil.NewSMTPServer(t, testutil.WithListenAddr(refusingAddr))
	results, _ := deliverAll(ctx, direct, down, 8, false, 50*time.Millisecond)
	assertEachOnce(t, results, down, back)
	if first := firstReceived(back); first.Before(start.Add(hold)) {
		t.Errorf("a held email was delivered at %s, before the hold ended at %s", first, start.Add(hold))
	}
}

// firstReceived is when srv accepted its first message.
func firstReceived(srv *testutil.SMTPServer) time.Time {
	var first time.Time
	for _, m := range srv.Messages() {
		if first.IsZero() || m.ReceivedAt.Before(first) {
			first = m.ReceivedAt
		}
	}
	return first
}

// D80: the shaping file's limits replace the defaults for its destination
// only.
func TestDirectShapingOverridesADestination(t *testing.T) {
	t.Parallel()
	farm := newMXFarm(t, 2, testutil.StallAfter(testutil.StageData, 10*time.Millisecond))
	farm.addDomains(0, "shaped.test")
	farm.addDomains(1, "free.test")
	shaping, err := ParseShaping([]byte("destinations:\n  dest-0.test:\n    connections: 2\n    transactions_per_connection: 5\n"))
	if err != nil {
		t.Fatalf("ParseShaping: %v", err)
	}
	direct := farm.direct(t, DirectOptions{Connections: 6, Shaping: shaping})
	recipients := recipientsAt(120, "shaped.test", "free.test")
	results, _ := deliverAll(farmContext(t, 40*time.Second), direct, recipients, 16, false, 10*time.Millisecond)
	assertEachOnce(t, results, recipients, farm.servers...)

	shaped, free := farm.servers[0], farm.servers[1]
	if got := shaped.MaxConcurrentConnections(); got > 2 {
		t.Errorf("shaped destination: %d connections at once, want at most 2", got)
	}
	for conn, n := range transactionsPerConnection(shaped) {
		if n > 5 {
			t.Errorf("shaped destination: connection %s carried %d transactions, want at most 5", conn, n)
		}
	}
	if got := free.MaxConcurrentConnections(); got <= 2 || got > 6 {
		t.Errorf("other destination: %d connections at once, want the default limit (up to 6) to apply", got)
	}
	if perConn := transactionsPerConnection(free); slices.Max(mapValues(perConn)) <= 5 {
		t.Errorf("other destination: at most %d transactions per connection, want its connections reused beyond 5", slices.Max(mapValues(perConn)))
	}
}

func mapValues(m map[string]int) []int {
	out := make([]int, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// D80: waiting for a connection, a transactional email goes before the
// broadcast emails that waited longer.
func TestDirectTransactionalOvertakesBroadcast(t *testing.T) {
	t.Parallel()
	farm := newMXFarm(t, 1, testutil.StallAfter(testutil.StageData, 50*time.Millisecond))
	farm.addDomains(0, "busy.test")
	direct := farm.direct(t, DirectOptions{Connections: 1})
	ctx := farmContext(t, 20*time.Second)
	data := []byte("Subject: order\r\n\r\nhello\r\n")
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Go(func() {
			direct.Deliver(ctx, Envelope{From: "s@example.com", Recipients: []string{fmt.Sprintf("bulk%d@busy.test", i)}, Background: true}, data)
		})
	}
	// Let the broadcast emails queue up behind the one connection.
	for destStats(direct, "dest-0.test").Queued < 10 && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
	r := direct.Deliver(ctx, Envelope{From: "s@example.com", Recipients: []string{"reset@busy.test"}}, data)[0]
	wg.Wait()
	if r.Class != ClassAccepted {
		t.Fatalf("transactional result %+v", r)
	}
	for i, m := range farm.servers[0].Messages() {
		if m.To[0] == "reset@busy.test" {
			if i > 3 {
				t.Errorf("the transactional email was received %dth, after %d broadcast emails that waited before it", i+1, i)
			}
			return
		}
	}
}

func TestParseShapingRefusesTypos(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{
		"destinations:\n  google.com:\n    conections: 5\n",
		"destinations:\n  google.com:\n    connections: -1\n",
		"destination:\n  google.com:\n    connections: 5\n",
	} {
		if _, err := ParseShaping([]byte(bad)); err == nil {
			t.Errorf("ParseShaping(%q) accepted it", bad)
		}
	}
	got, err := ParseShaping([]byte("destinations:\n  Google.COM.:\n    connections: 20\n    messages_per_minute: 600\n"))
	if err != nil || got["google.com"] != (Shaping{Connections: 20, MessagesPerMinute: 600}) {
		t.Errorf("ParseShaping = %+v, %v", got, err)
	}
}

func TestAsksToSlowDown(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		r    Result
		want bool
	}{
		{Result{Class: ClassTemporary, Code: 421, Enhanced: "4.7.28", Message: "unusual rate of unsolicited mail"}, true},
		{Result{Class: ClassTemporary, Code: 421, Enhanced: "4.3.2", Message: "System shutting down"}, true},
		{Result{Class: ClassTemporary, Code: 451, Enhanced: "4.7.500", Message: "Server busy. Please try again later"}, true},
		{Result{Class: ClassTemporary, Code: 450, Enhanced: "4.7.1", Message: "Greylisted, see http://postgrey"}, false},
		{Result{Class: ClassTemporary, Code: 452, Enhanced: "4.2.2", Message: "mailbox full"}, false},
		{Result{Class: ClassBlock, Code: 550, Enhanced: "5.7.1", Message: "rate limit exceeded"}, false},
	} {
		if got := asksToSlowDown(c.r); got != c.want {
			t.Errorf("asksToSlowDown(%+v) = %v, want %v", c.r, got, c.want)
		}
	}
}
