package inbound

import (
	"bufio"
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

// greeting connects to srv and returns the connection and its first line.
func greeting(t *testing.T, srv *Server) (net.Conn, string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", srv.Addr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, _ := bufio.NewReader(c).ReadString('\n')
	return c, line
}

// TestConnectionsPerClientAreCapped: a client holding ConnsPerIP
// connections gets a 421 greeting for the next one; closing one gives its
// slot back (a flood from one address cannot take every session).
func TestConnectionsPerClientAreCapped(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Options{ConnsPerIP: 2}, newTestHandler())
	c1, l1 := greeting(t, srv)
	c2, l2 := greeting(t, srv)
	if !strings.HasPrefix(l1, "220 ") || !strings.HasPrefix(l2, "220 ") {
		t.Fatalf("greetings %q %q, want 220", l1, l2)
	}
	c3, l3 := greeting(t, srv)
	c3.Close()
	if !strings.HasPrefix(l3, "421 4.7.0") {
		t.Fatalf("third connection greeted %q, want 421 4.7.0", l3)
	}
	c1.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, line := greeting(t, srv)
		c.Close()
		if strings.HasPrefix(line, "220 ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("slot not given back: greeted %q", line)
		}
		time.Sleep(20 * time.Millisecond)
	}
	c2.Close()
}

// TestPeerReachesTheHandler: Deliver's context names the client's address
// and HELO name, which SPF needs (D75).
func TestPeerReachesTheHandler(t *testing.T) {
	t.Parallel()
	h := newTestHandler()
	got := make(chan Peer, 1)
	h.deliver = func(ctx context.Context) error { got <- PeerFrom(ctx); return nil }
	srv := startServer(t, Options{}, h)
	c := dial(t, srv)
	if err := c.Mail("a@sender.example", nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Rcpt("x@"+customerHost, nil); err != nil {
		t.Fatal(err)
	}
	if err := sendData(t, c, []byte("Subject: x\r\n\r\nx\r\n")); err != nil {
		t.Fatal(err)
	}
	p := <-got
	if p.IP.String() != "127.0.0.1" || p.Helo == "" {
		t.Errorf("peer %+v, want 127.0.0.1 and the HELO name", p)
	}
}
