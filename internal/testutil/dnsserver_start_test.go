package testutil

import (
	"net"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// A benchmark has no testing.TB: StartDNSServer must serve without one and
// Close must free the port (TCP refuses afterwards), or a long benchmark
// that starts a server per scenario leaks listeners.
func TestStartDNSServerServesUntilClose(t *testing.T) {
	t.Parallel()
	s, err := StartDNSServer()
	if err != nil {
		t.Fatalf("StartDNSServer: %v", err)
	}
	s.SetTXT("bench.example", "v=spf1 -all")
	if reply := exchange(t, s, "tcp", "bench.example", dns.TypeTXT); len(reply.Answer) != 1 {
		t.Fatalf("before Close: %d answers, want 1", len(reply.Answer))
	}
	s.Close()
	conn, err := net.DialTimeout("tcp", s.Addr(), time.Second)
	if err == nil {
		conn.Close()
		t.Fatalf("after Close: TCP %s still accepts connections", s.Addr())
	}
}
