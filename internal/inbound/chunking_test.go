package inbound

import (
	"bytes"
	"fmt"
	"net"
	"net/textproto"
	"testing"
	"time"
)

// go-smtp always offers CHUNKING, so BDAT must obey the same cap as DATA
// and deliver the same exact bytes.
func TestChunkingRespectsTheCap(t *testing.T) {
	t.Parallel()
	const limit = 1024
	h := newTestHandler()
	srv := startServer(t, Options{MaxMessageBytes: limit}, h)
	raw, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	// A hang fails the test instead of blocking it.
	_ = raw.SetDeadline(time.Now().Add(5 * time.Second))
	conn := textproto.NewConn(raw)
	t.Cleanup(func() { _ = conn.Close() })
	expect := func(what string, code int) {
		t.Helper()
		if _, msg, err := conn.ReadResponse(code); err != nil {
			t.Fatalf("%s: %v (%s)", what, err, msg)
		}
	}
	send := func(format string, args ...any) {
		t.Helper()
		if err := conn.PrintfLine(format, args...); err != nil {
			t.Fatalf("send: %v", err)
		}
	}
	bdat := func(body []byte) {
		t.Helper()
		send("BDAT %d LAST", len(body))
		if _, err := conn.W.Write(body); err != nil {
			t.Fatalf("write chunk: %v", err)
		}
		if err := conn.W.Flush(); err != nil {
			t.Fatalf("flush chunk: %v", err)
		}
	}
	expect("greeting", 220)
	send("EHLO client.test")
	expect("EHLO", 250)

	send("MAIL FROM:<>")
	expect("MAIL", 250)
	send("RCPT TO:<bounces+a@bounces.example.com>")
	expect("RCPT", 250)
	bdat(messageOfSize(limit + 1))
	expect("BDAT over the cap", 552)

	exact := messageOfSize(limit)
	send("MAIL FROM:<>")
	expect("MAIL", 250)
	send("RCPT TO:<bounces+b@bounces.example.com>")
	expect("RCPT", 250)
	bdat(exact)
	expect("BDAT of exactly the cap", 250)

	got := h.Deliveries()
	if len(got) != 1 || !bytes.Equal(got[0].Raw, exact) || fmt.Sprint(got[0].To) != "[bounces+b@bounces.example.com]" {
		t.Fatalf("deliveries %d, want only the message of exactly the cap", len(got))
	}
}
