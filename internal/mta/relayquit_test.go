package mta

import (
	"bufio"
	"net"
	"strings"
	"sync"
	"testing"
)

// TestRelayQuitsAfterRefusingWithoutSTARTTLS: smtp:// refuses a relay that
// offers no STARTTLS (D3), and says QUIT before closing instead of
// dropping the connection (issue 24, item 5).
func TestRelayQuitsAfterRefusingWithoutSTARTTLS(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu       sync.Mutex
		commands []string
		wg       sync.WaitGroup
	)
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	wg.Go(func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer func() { _ = conn.Close() }()
		reply := func(line string) { _, _ = conn.Write([]byte(line + "\r\n")) }
		reply("220 relay.test ESMTP")
		r := bufio.NewReader(conn)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			cmd := strings.ToUpper(strings.TrimSpace(line))
			mu.Lock()
			commands = append(commands, cmd)
			mu.Unlock()
			switch {
			case strings.HasPrefix(cmd, "EHLO"):
				reply("250-relay.test")
				reply("250 8BITMIME") // no STARTTLS
			case cmd == "QUIT":
				reply("221 2.0.0 Bye")
				return
			default:
				reply("502 5.5.1 unexpected")
			}
		}
	})
	relay := newRelay(t, "smtp://"+ln.Addr().String(), RelayOptions{})
	results := relay.Deliver(testContext(t), Envelope{From: "a@example.com", Recipients: []string{"b@example.org"}}, builtMessage(t))
	assertClasses(t, results, map[string]Class{"b@example.org": ClassTemporary})
	_ = ln.Close()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(commands) != 2 || commands[1] != "QUIT" {
		t.Errorf("commands %q, want EHLO then QUIT", commands)
	}
}
