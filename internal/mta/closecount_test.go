package mta

import (
	"bufio"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// noticeLag is how long slowClosingMX takes to notice that a client
// dropped a connection, as a busy server does.
const noticeLag = 200 * time.Millisecond

// slowClosingMX is an exchanger that counts the sessions it holds open at
// once. It answers 421 to every second MAIL of a connection and, as
// go-smtp does, keeps the connection open after it (answering the rest of
// a pipelined group with 503); after QUIT it counts the session closed
// before its 221 leaves; a connection the client drops counts as open
// until the server notices, noticeLag later. A client that opens a new
// connection as soon as it dropped one after a 421 has two open at the
// server for that moment.
type slowClosingMX struct {
	addr string

	mu            sync.Mutex
	open, maxOpen int
	throttled     int
	received      map[string]int
}

func serveSlowClosingMX(t *testing.T, addr string) *slowClosingMX {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen %s: %v", addr, err)
	}
	mx := &slowClosingMX{addr: ln.Addr().String(), received: map[string]int{}}
	var wg sync.WaitGroup
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mx.mu.Lock()
			mx.open++
			mx.maxOpen = max(mx.maxOpen, mx.open)
			mx.mu.Unlock()
			wg.Go(func() { mx.serve(conn) })
		}
	})
	return mx
}

// closed counts one session closed.
func (mx *slowClosingMX) closed() {
	mx.mu.Lock()
	mx.open--
	mx.mu.Unlock()
}

func (mx *slowClosingMX) serve(conn net.Conn) {
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	r := bufio.NewReader(conn)
	say := func(line string) { _, _ = conn.Write([]byte(line + "\r\n")) }
	say("220 mx.test ready")
	var transactions int
	var mailOK bool
	var rcpts []string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			time.Sleep(noticeLag)
			mx.closed()
			return
		}
		cmd := strings.TrimRight(line, "\r\n")
		switch verb := strings.ToUpper(cmd); {
		case strings.HasPrefix(verb, "EHLO"):
			say("250-mx.test\r\n250 PIPELINING")
		case strings.HasPrefix(verb, "MAIL"):
			transactions++
			mailOK, rcpts = transactions%2 == 1, nil
			if !mailOK {
				mx.mu.Lock()
				mx.throttled++
				mx.mu.Unlock()
				say("421 4.7.0 too many messages, slow down")
				continue
			}
			say("250 2.1.0 ok")
		case strings.HasPrefix(verb, "RCPT TO:<") && mailOK:
			rcpts = append(rcpts, strings.TrimSuffix(cmd[len("RCPT TO:<"):], ">"))
			say("250 2.1.5 ok")
		case verb == "DATA" && mailOK:
			say("354 go on")
			for {
				body, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if body == ".\r\n" {
					break
				}
			}
			mx.mu.Lock()
			for _, rcpt := range rcpts {
				mx.received[rcpt]++
			}
			mx.mu.Unlock()
			mailOK = false
			say("250 2.0.0 queued")
		case verb == "RSET":
			mailOK = false
			say("250 2.0.0 reset")
		case verb == "QUIT":
			mx.closed()
			say("221 2.0.0 bye")
			return
		default:
			say("503 5.5.1 bad sequence of commands")
		}
	}
}

// assertNeverOver checks the most sessions open at once and that every
// recipient was received exactly once.
func (mx *slowClosingMX) assertNeverOver(t *testing.T, limit int, recipients []string) {
	t.Helper()
	mx.mu.Lock()
	defer mx.mu.Unlock()
	if mx.throttled == 0 {
		t.Fatal("the server never answered 421: the test provoked nothing")
	}
	if mx.maxOpen > limit {
		t.Errorf("the server had %d sessions open at once, want at most %d (a connection dropped after a 421 counted until its close was seen)", mx.maxOpen, limit)
	}
	for _, rcpt := range recipients {
		if n := mx.received[rcpt]; n != 1 {
			t.Errorf("%s received %d time(s), want once", rcpt, n)
		}
	}
}

// D80, issue 32: a connection answered 421 is closed, and the server's
// close awaited, before its room goes to another delivery: a destination
// limited to one connection never has two open at the server.
func TestDirectCountsAConnectionUntilItsCloseAfter421(t *testing.T) {
	t.Parallel()
	farm := newMXFarm(t, 1)
	mx := serveSlowClosingMX(t, net.JoinHostPort(farmIP(1), strconv.Itoa(farm.port)))
	farm.dns.SetA("mx."+farmDestination(1), farmIP(1))
	farm.addDomains(1, "busy.test")
	direct := farm.direct(t, DirectOptions{Connections: 1})
	recipients := recipientsAt(12, "busy.test")
	results, deferred := deliverAll(farmContext(t, 30*time.Second), direct, recipients, 4, false, 10*time.Millisecond)
	for _, rcpt := range recipients {
		if r := results[rcpt]; r.Class != ClassAccepted {
			t.Errorf("%s: %+v, want accepted", rcpt, r)
		}
	}
	if deferred == 0 {
		t.Error("no delivery was deferred by the 421s")
	}
	mx.assertNeverOver(t, 1, recipients)
}

// D80, issue 32: the relay's pool, too, frees a slot taken by a
// connection answered 421 only once the relay has closed it.
func TestRelayCountsAConnectionUntilItsCloseAfter421(t *testing.T) {
	t.Parallel()
	mx := serveSlowClosingMX(t, "127.0.0.1:0")
	relay := newRelay(t, "smtp+plain://"+mx.addr, RelayOptions{PoolSize: 1})
	ctx := testContext(t)
	recipients := recipientsAt(12, "example.org")
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < len(recipients); i += 4 {
				env := Envelope{From: "s@example.com", Recipients: []string{recipients[i]}}
				for ctx.Err() == nil {
					r := relay.Deliver(ctx, env, pipeData)[0]
					if r.Class == ClassAccepted {
						break
					}
					if r.Class != ClassTemporary {
						t.Errorf("%s: %+v", recipients[i], r)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatalf("deliveries did not complete: %v", ctx.Err())
	}
	mx.assertNeverOver(t, 1, recipients)
}
