package mta

import (
	"bufio"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// scriptedMX is a minimal exchanger with PIPELINING that answers RSET only
// once the next command has arrived, as a server reading a pipelined group
// may: a client that waits for RSET's reply before sending MAIL stalls.
// With closeAfterMessage it closes each connection after its first message,
// as a server closing an idle connection does.
type scriptedMX struct {
	connections, messages atomic.Int32
}

func serveScriptedMX(t *testing.T, addr string, closeAfterMessage bool) *scriptedMX {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen %s: %v", addr, err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	mx := &scriptedMX{}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mx.connections.Add(1)
			go mx.serve(conn, closeAfterMessage)
		}
	}()
	return mx
}

func (mx *scriptedMX) serve(conn net.Conn, closeAfterMessage bool) {
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	r := bufio.NewReader(conn)
	say := func(lines string) bool { _, err := conn.Write([]byte(lines + "\r\n")); return err == nil }
	if !say("220 mx.test ready") {
		return
	}
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		verb := strings.ToUpper(strings.TrimSpace(line))
		if strings.HasPrefix(verb, "RSET") {
			// Answer only once the next command is here.
			if _, err := r.Peek(1); err != nil {
				return
			}
			if !say("250 2.0.0 reset") {
				return
			}
			continue
		}
		var ok bool
		switch {
		case strings.HasPrefix(verb, "EHLO"):
			ok = say("250-mx.test\r\n250 PIPELINING")
		case strings.HasPrefix(verb, "MAIL"), strings.HasPrefix(verb, "RCPT"):
			ok = say("250 2.1.0 ok")
		case verb == "DATA":
			if ok = say("354 go on"); !ok {
				return
			}
			for {
				body, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if body == ".\r\n" {
					break
				}
			}
			mx.messages.Add(1)
			ok = say("250 2.0.0 queued")
			if closeAfterMessage {
				return
			}
		case verb == "QUIT":
			say("221 bye")
			return
		default:
			ok = say("502 5.5.2 not implemented")
		}
		if !ok {
			return
		}
	}
}

// directToScripted is a Direct transport whose domain "scripted.test" is
// served by a scriptedMX.
func directToScripted(t *testing.T, closeAfterMessage bool) (*Direct, *scriptedMX) {
	t.Helper()
	farm := newMXFarm(t, 1)
	mx := serveScriptedMX(t, net.JoinHostPort(farmIP(1), strconv.Itoa(farm.port)), closeAfterMessage)
	farm.dns.SetA("mx."+farmDestination(1), farmIP(1))
	farm.addDomains(1, "scripted.test")
	return farm.direct(t, DirectOptions{}), mx
}

// D80: a pooled connection is proved alive by RSET before its next
// transaction, in the same pipelined group as MAIL and RCPT: reusing a
// connection costs no round trip of its own, which is what lets direct
// delivery keep up with the relay (issue 32's target).
func TestDirectPipelinesTheRSETOfAReusedConnection(t *testing.T) {
	t.Parallel()
	direct, mx := directToScripted(t, false)
	ctx := farmContext(t, 20*time.Second)
	data := []byte("Subject: reuse\r\n\r\nhello\r\n")
	for i, rcpt := range []string{"a@scripted.test", "b@scripted.test", "c@scripted.test"} {
		if r := direct.Deliver(ctx, Envelope{From: "s@example.com", Recipients: []string{rcpt}}, data)[0]; r.Class != ClassAccepted {
			t.Fatalf("delivery %d: %+v", i, r)
		}
	}
	if n := mx.connections.Load(); n != 1 {
		t.Errorf("3 emails took %d connections, want 1 reused (its RSET sent with MAIL)", n)
	}
}

// D80: a pooled connection the server closed while idle fails its RSET;
// the delivery takes a new connection and nobody is deferred.
func TestDirectReplacesAPooledConnectionClosedWhileIdle(t *testing.T) {
	t.Parallel()
	direct, mx := directToScripted(t, true)
	ctx := farmContext(t, 20*time.Second)
	data := []byte("Subject: reuse\r\n\r\nhello\r\n")
	for i, rcpt := range []string{"a@scripted.test", "b@scripted.test"} {
		if r := direct.Deliver(ctx, Envelope{From: "s@example.com", Recipients: []string{rcpt}}, data)[0]; r.Class != ClassAccepted {
			t.Fatalf("delivery %d: %+v, want accepted on a new connection", i, r)
		}
		time.Sleep(50 * time.Millisecond) // the server's close reaches the pooled connection
	}
	if n, m := mx.connections.Load(), mx.messages.Load(); n != 2 || m != 2 {
		t.Errorf("%d connections carried %d messages, want 2 and 2 (the closed one replaced)", n, m)
	}
}
