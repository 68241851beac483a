package inbound

import (
	"net/netip"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestClientLimiterRefusesPastBurstAndRefills(t *testing.T) {
	t.Parallel()
	l := newClientLimiter(1, 2, 100)
	a := netip.MustParseAddr("192.0.2.1")
	for i, want := range []bool{true, true, false} {
		if got := l.allow(a, t0); got != want {
			t.Fatalf("request %d at t0: allowed=%v, want %v", i+1, got, want)
		}
	}
	if !l.allow(a, t0.Add(time.Second)) {
		t.Fatal("no token after one second at 1/s")
	}
	if l.allow(a, t0.Add(time.Second)) {
		t.Fatal("two tokens after one second at 1/s")
	}
}

// Memory stays bounded: a client idle for a full refill is forgotten (a
// new bucket would be identical), and the table never exceeds its cap.
func TestClientLimiterForgetsIdleClientsAndStaysBounded(t *testing.T) {
	t.Parallel()
	l := newClientLimiter(1, 2, 3) // refills in 2 s
	l.allow(netip.MustParseAddr("192.0.2.1"), t0)
	l.allow(netip.MustParseAddr("192.0.2.2"), t0.Add(time.Second))
	l.allow(netip.MustParseAddr("192.0.2.3"), t0.Add(2*time.Second))
	if n := l.tracked(); n != 2 {
		t.Fatalf("tracking %d clients after one went idle for a full refill, want 2", n)
	}
	for i := range 10 {
		l.allow(netip.AddrFrom4([4]byte{198, 51, 100, byte(i)}), t0.Add(2*time.Second))
	}
	if n := l.tracked(); n != 3 {
		t.Fatalf("tracking %d clients, want the cap of 3", n)
	}
}

// An IPv6 host usually holds a /64, so the /64 is one client; an
// IPv4-mapped address is its IPv4 client.
func TestClientKeys(t *testing.T) {
	t.Parallel()
	l := newClientLimiter(1, 1, 100)
	if !l.allow(netip.MustParseAddr("2001:db8::1"), t0) {
		t.Fatal("first request of 2001:db8::1 refused")
	}
	if l.allow(netip.MustParseAddr("2001:db8::ffff:2"), t0) {
		t.Fatal("another address of the same /64 got a bucket of its own")
	}
	if !l.allow(netip.MustParseAddr("2001:db8:0:1::1"), t0) {
		t.Fatal("a different /64 shares a bucket")
	}
	if !l.allow(netip.MustParseAddr("192.0.2.9"), t0) {
		t.Fatal("first request of 192.0.2.9 refused")
	}
	if l.allow(netip.MustParseAddr("::ffff:192.0.2.9"), t0) {
		t.Fatal("IPv4-mapped form of 192.0.2.9 got a bucket of its own")
	}
}
