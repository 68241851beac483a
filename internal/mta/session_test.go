package mta

import (
	"bufio"
	"net"
	"strings"
	"sync"
	"testing"
)

// oldServer is a minimal SMTP server on a real socket that knows neither
// EHLO nor PIPELINING, like old or stripped-down MTAs: it exercises the
// HELO fallback and the one-command-at-a-time path that go-smtp's server
// (which always offers PIPELINING) cannot. It rejects RCPT for addresses
// starting with "no".
type oldServer struct {
	addr string
	mu   sync.Mutex
	cmds []string
	data string
}

func newOldServer(t *testing.T) *oldServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &oldServer{addr: ln.Addr().String()}
	var wg sync.WaitGroup
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	wg.Go(func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		s.serve(conn)
	})
	return s
}

func (s *oldServer) serve(conn net.Conn) {
	r := bufio.NewReader(conn)
	reply := func(line string) { _, _ = conn.Write([]byte(line + "\r\n")) }
	reply("220 old.example SMTP")
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.TrimRight(line, "\r\n")
		s.mu.Lock()
		s.cmds = append(s.cmds, cmd)
		s.mu.Unlock()
		switch upper := strings.ToUpper(cmd); {
		case strings.HasPrefix(upper, "EHLO"):
			reply("502 5.5.2 command not recognized")
		case strings.HasPrefix(upper, "RCPT TO:<NO"):
			reply("550 5.1.1 unknown user")
		case strings.HasPrefix(upper, "DATA"):
			reply("354 end with <CRLF>.<CRLF>")
			var body strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				body.WriteString(l)
			}
			s.mu.Lock()
			s.data = body.String()
			s.mu.Unlock()
			reply("250 2.0.0 queued as 12345")
		case strings.HasPrefix(upper, "QUIT"):
			reply("221 bye")
			return
		default:
			reply("250 ok")
		}
	}
}

func TestSequentialSessionWithHELOFallback(t *testing.T) {
	t.Parallel()
	srv := newOldServer(t)
	relay := newRelay(t, "smtp+plain://"+srv.addr, RelayOptions{MaxMessagesPerSession: 1})
	data := []byte("Subject: hi\r\n\r\n.dot line\r\nend\r\n")
	results := relay.Deliver(testContext(t), Envelope{From: "s@example.com", Recipients: []string{"yes@example.org", "no@example.org"}}, data)
	assertClasses(t, results, map[string]Class{"yes@example.org": ClassAccepted, "no@example.org": ClassPermanent})
	if r := results[0]; r.Code != 250 || r.Enhanced != "2.0.0" || r.Message != "queued as 12345" {
		t.Errorf("accepted result %+v", r)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	want := []string{"EHLO mta.test", "HELO mta.test", "MAIL FROM:<s@example.com>", "RCPT TO:<yes@example.org>", "RCPT TO:<no@example.org>", "DATA", "QUIT"}
	if strings.Join(srv.cmds, "|") != strings.Join(want, "|") {
		t.Errorf("commands %q, want %q (no extension parameters without EHLO)", srv.cmds, want)
	}
	if srv.data != "Subject: hi\r\n\r\n..dot line\r\nend\r\n" {
		t.Errorf("data on the wire %q, want the dot stuffed", srv.data)
	}
}

// A relay without PIPELINING gets its pooled connection's RSET on its own,
// answered before MAIL: the lock-step path of a reused connection.
func TestRelayReusesALockStepConnection(t *testing.T) {
	t.Parallel()
	srv := newOldServer(t) // serves one connection only
	relay := newRelay(t, "smtp+plain://"+srv.addr, RelayOptions{})
	for i, rcpt := range []string{"a@example.org", "b@example.org"} {
		r := relay.Deliver(testContext(t), Envelope{From: "s@example.com", Recipients: []string{rcpt}}, []byte("Subject: hi\r\n\r\nhi\r\n"))[0]
		if r.Class != ClassAccepted {
			t.Fatalf("email %d: %+v, want accepted on the one connection", i, r)
		}
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	want := []string{"EHLO mta.test", "HELO mta.test", "MAIL FROM:<s@example.com>", "RCPT TO:<a@example.org>", "DATA",
		"RSET", "MAIL FROM:<s@example.com>", "RCPT TO:<b@example.org>", "DATA"}
	if strings.Join(srv.cmds, "|") != strings.Join(want, "|") {
		t.Errorf("commands %q, want %q", srv.cmds, want)
	}
}
