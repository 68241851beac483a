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

// pipelinedMX is an exchanger offering PIPELINING that reads a whole
// group, up to and including DATA, before it answers any command of it:
// a client that waits for a reply before sending DATA stalls there (RFC
// 2920 lets a server answer that late). It answers RCPTs by the script
// (accepted otherwise); its reply to DATA is dataReply, or, when that is
// empty, what RFC 2920 section 3.1 asks: 354 when a recipient was
// accepted, else 554. A reply of 421 is followed by the server's close.
// It records each group and each message body it received.
type pipelinedMX struct {
	addr      string
	rcpt      map[string]string // RCPT address -> reply line
	dataReply string
	// goesOnAfter421: the server does not close after a 421, as go-smtp
	// does not; RFC 5321 section 3.8 has it close.
	goesOnAfter421 bool

	mu          sync.Mutex
	connections int
	groups      [][]string
	bodies      []string
	cutShort    []string // message input of connections dropped before the "."
}

func servePipelinedMX(t *testing.T, addr string, rcpt map[string]string, dataReply string) *pipelinedMX {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen %s: %v", addr, err)
	}
	mx := &pipelinedMX{addr: ln.Addr().String(), rcpt: rcpt, dataReply: dataReply}
	var wg sync.WaitGroup
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mx.mu.Lock()
			mx.connections++
			mx.mu.Unlock()
			wg.Go(func() { mx.serve(conn) })
		}
	})
	return mx
}

func (mx *pipelinedMX) serve(conn net.Conn) {
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	r := bufio.NewReader(conn)
	say := func(line string) bool { _, err := conn.Write([]byte(line + "\r\n")); return err == nil }
	if !say("220 mx.test ready") {
		return
	}
	var group []string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.TrimRight(line, "\r\n")
		verb := strings.ToUpper(cmd)
		switch {
		case strings.HasPrefix(verb, "EHLO"):
			if !say("250-mx.test\r\n250-PIPELINING\r\n250 8BITMIME") {
				return
			}
			continue
		case verb == "QUIT":
			say("221 2.0.0 bye")
			return
		}
		group = append(group, cmd)
		if verb != "DATA" {
			continue // nothing is answered before the group's end
		}
		mx.mu.Lock()
		mx.groups = append(mx.groups, group)
		mx.mu.Unlock()
		if !mx.answer(conn, r, group, say) {
			return
		}
		group = nil
	}
}

// answer replies to one group in order and reads the message after a 354;
// false means the connection is over.
func (mx *pipelinedMX) answer(conn net.Conn, r *bufio.Reader, group []string, say func(string) bool) bool {
	accepted, dataAnswer := 0, ""
	for _, cmd := range group {
		verb := strings.ToUpper(cmd)
		reply := "250 2.0.0 ok"
		switch {
		case strings.HasPrefix(verb, "RCPT TO:<"):
			address := strings.TrimSuffix(cmd[len("RCPT TO:<"):], ">")
			if scripted, ok := mx.rcpt[address]; ok {
				reply = scripted
			} else {
				accepted++
			}
		case verb == "DATA":
			reply = mx.dataReply
			if reply == "" {
				reply = "554 5.5.1 no valid recipients"
				if accepted > 0 {
					reply = "354 go on"
				}
			}
			dataAnswer = reply
		}
		if !say(reply) || (strings.HasPrefix(reply, "421") && !mx.goesOn()) {
			return false
		}
	}
	if !strings.HasPrefix(dataAnswer, "354") {
		return true
	}
	var body strings.Builder
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			mx.mu.Lock()
			mx.cutShort = append(mx.cutShort, body.String())
			mx.mu.Unlock()
			return false
		}
		if line == ".\r\n" {
			break
		}
		body.WriteString(line)
	}
	mx.mu.Lock()
	mx.bodies = append(mx.bodies, body.String())
	mx.mu.Unlock()
	return say("250 2.0.0 queued")
}

// seen returns the groups and bodies received and the connections made.
func (mx *pipelinedMX) seen() (groups [][]string, bodies []string, connections int) {
	mx.mu.Lock()
	defer mx.mu.Unlock()
	return append([][]string(nil), mx.groups...), append([]string(nil), mx.bodies...), mx.connections
}

// directToPipelined is a Direct transport whose domain "pipe.test" is
// served by a pipelinedMX.
func directToPipelined(t *testing.T, rcpt map[string]string, dataReply string) (*Direct, *pipelinedMX) {
	t.Helper()
	farm := newMXFarm(t, 1)
	mx := servePipelinedMX(t, net.JoinHostPort(farmIP(1), strconv.Itoa(farm.port)), rcpt, dataReply)
	farm.dns.SetA("mx."+farmDestination(1), farmIP(1))
	farm.addDomains(1, "pipe.test")
	return farm.direct(t, DirectOptions{}), mx
}

// cutShortCount is how many connections were dropped inside a message.
func (mx *pipelinedMX) cutShortCount() int {
	mx.mu.Lock()
	defer mx.mu.Unlock()
	return len(mx.cutShort)
}

// goesOn reads goesOnAfter421, which a test sets after the server started.
func (mx *pipelinedMX) goesOn() bool {
	mx.mu.Lock()
	defer mx.mu.Unlock()
	return mx.goesOnAfter421
}
