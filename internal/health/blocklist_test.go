package health

import (
	"context"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/dnscheck"
	"github.com/carteiro/carteiro/internal/testutil"
	"github.com/miekg/dns"
)

// newDNSBL starts an in-process DNS server playing the blocklists and a
// resolver asking it.
func newDNSBL(t *testing.T) (*testutil.DNSServer, *dnscheck.Resolver) {
	t.Helper()
	server := testutil.NewDNSServer(t)
	r, err := dnscheck.NewResolver(server.Addr(), 2*time.Second)
	if err != nil {
		t.Fatalf("NewResolver: %v", err)
	}
	return server, r
}

func checkListings(t *testing.T, got, want []Listing) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("listings:\n got %+v\nwant %+v", got, want)
	}
}

func TestCheckBlocklistsIPListedOnOneListOnly(t *testing.T) {
	t.Parallel()
	server, r := newDNSBL(t)
	const reason = "Listed by ip.test, see https://ip.test/query/127.0.0.2"
	server.SetA("2.0.0.127.ip.test", "127.0.0.2")
	server.SetTXT("2.0.0.127.ip.test", reason)
	// clean.test holds nothing: the name does not exist (NXDOMAIN).

	lists := []List{{Zone: "ip.test", Kind: KindIP}, {Zone: "clean.test", Kind: KindIP}}
	got := CheckBlocklists(context.Background(), r, lists, []string{"127.0.0.2"}, "")
	checkListings(t, got, []Listing{
		{List: "ip.test", Target: "127.0.0.2", Listed: true, Detail: reason},
		{List: "clean.test", Target: "127.0.0.2"},
	})
	if n := server.QueryCount("2.0.0.127.ip.test", dns.TypeA); n != 1 {
		t.Errorf("A queries for the reversed name = %d, want 1", n)
	}
	if n := server.QueryCount("2.0.0.127.clean.test", dns.TypeTXT); n != 0 {
		t.Errorf("the reason of an unlisted address was looked up %d times", n)
	}
}

func TestCheckBlocklistsJoinsSeveralReasons(t *testing.T) {
	t.Parallel()
	server, r := newDNSBL(t)
	server.SetA("5.2.0.192.ip.test", "127.0.0.2", "127.0.0.4")
	server.SetTXT("5.2.0.192.ip.test", "spam source")
	got := CheckBlocklists(context.Background(), r, []List{{Zone: "ip.test", Kind: KindIP}}, []string{"192.0.2.5"}, "")
	if len(got) != 1 || !got[0].Listed || got[0].Detail != "spam source" {
		t.Errorf("listings = %+v", got)
	}

	server.SetTXT("5.2.0.192.ip.test", "spam source", "botnet")
	got = CheckBlocklists(context.Background(), r, []List{{Zone: "ip.test", Kind: KindIP}}, []string{"192.0.2.5"}, "")
	if len(got) != 1 || (got[0].Detail != "spam source; botnet" && got[0].Detail != "botnet; spam source") {
		t.Errorf("two TXT reasons: %+v", got)
	}
}

func TestCheckBlocklistsIPv6NibbleNameWithoutReason(t *testing.T) {
	t.Parallel()
	server, r := newDNSBL(t)
	// 2001:db8::5, every nibble reversed; the list publishes no TXT reason,
	// so the return code stands in for it.
	server.SetA("5.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip.test", "127.0.0.4")

	got := CheckBlocklists(context.Background(), r, []List{{Zone: "ip.test", Kind: KindIP}}, []string{"2001:DB8::5"}, "")
	checkListings(t, got, []Listing{{List: "ip.test", Target: "2001:db8::5", Listed: true, Detail: "listed (127.0.0.4)"}})
}

func TestCheckBlocklistsDomainList(t *testing.T) {
	t.Parallel()
	server, r := newDNSBL(t)
	server.SetA("example.com.dbl.test", "127.0.1.2")
	server.SetTXT("example.com.dbl.test", "https://dbl.test/lookup/example.com")

	lists := []List{
		{Zone: "ip.test", Kind: KindIP},
		{Zone: "dbl.test", Kind: KindDomain},
		{Zone: "uri.test", Kind: KindDomain},
	}
	got := CheckBlocklists(context.Background(), r, lists, []string{"192.0.2.1"}, "Example.COM.")
	checkListings(t, got, []Listing{
		{List: "ip.test", Target: "192.0.2.1"},
		{List: "dbl.test", Target: "example.com", Listed: true, Detail: "https://dbl.test/lookup/example.com"},
		{List: "uri.test", Target: "example.com"},
	})

	// Without a domain, domain lists are not asked at all.
	got = CheckBlocklists(context.Background(), r, lists, nil, "")
	if len(got) != 0 {
		t.Errorf("no targets gave %+v", got)
	}
}

func TestCheckBlocklistsUntrustedAnswersAreNotListings(t *testing.T) {
	t.Parallel()
	server, r := newDNSBL(t)
	server.SetFailure("1.2.0.192.broken.test", dns.RcodeServerFailure)
	// Spamhaus answers 127.255.255.254 to queries through public resolvers.
	server.SetA("1.2.0.192.refusing.test", "127.255.255.254")
	server.SetTXT("1.2.0.192.refusing.test", "open resolver")
	// A resolver rewriting NXDOMAIN to an advertising host.
	server.SetA("1.2.0.192.hijacked.test", "198.51.100.7")

	lists := []List{
		{Zone: "broken.test", Kind: KindIP},
		{Zone: "refusing.test", Kind: KindIP},
		{Zone: "hijacked.test", Kind: KindIP},
	}
	got := CheckBlocklists(context.Background(), r, lists, []string{"192.0.2.1", "not-an-ip"}, "")
	if len(got) != 6 {
		t.Fatalf("got %d listings, want 6: %+v", len(got), got)
	}
	for _, l := range got {
		if l.Listed {
			t.Errorf("%s/%s counted as listed: %+v", l.List, l.Target, l)
		}
	}
	wantDetail := []string{
		DetailLookupFailed, DetailInvalidIP,
		"query refused by the list (127.255.255.254)", DetailInvalidIP,
		"unexpected answer (198.51.100.7)", DetailInvalidIP,
	}
	for i, l := range got {
		if !strings.HasPrefix(l.Detail, wantDetail[i]) {
			t.Errorf("listing %d (%s/%s) detail %q, want it to start with %q", i, l.List, l.Target, l.Detail, wantDetail[i])
		}
	}
	for _, q := range server.Queries() {
		if !strings.HasPrefix(q.Name, "1.2.0.192.") {
			t.Errorf("unexpected question %s: only the valid address may reach DNS", q.Name)
		}
	}
	if n := server.QueryCount("1.2.0.192.refusing.test", dns.TypeTXT); n != 0 {
		t.Errorf("the reason of a refused query was looked up")
	}
}

func TestCheckBlocklistsOrderAndDuplicates(t *testing.T) {
	t.Parallel()
	server, r := newDNSBL(t)
	server.SetA("1.2.0.192.b.test", "127.0.0.3")

	lists := []List{{Zone: "a.test", Kind: KindIP}, {Zone: "B.Test.", Kind: KindIP}}
	// The mapped form is the same address as 192.0.2.1: asked once per list.
	ips := []string{"192.0.2.1", "198.51.100.2", "::ffff:192.0.2.1"}
	got := CheckBlocklists(context.Background(), r, lists, ips, "")
	checkListings(t, got, []Listing{
		{List: "a.test", Target: "192.0.2.1"},
		{List: "a.test", Target: "198.51.100.2"},
		{List: "b.test", Target: "192.0.2.1", Listed: true, Detail: "listed (127.0.0.3)"},
		{List: "b.test", Target: "198.51.100.2"},
	})
	if n := server.QueryCount("1.2.0.192.a.test", dns.TypeA); n != 1 {
		t.Errorf("duplicate address asked %d times, want 1", n)
	}
}

// TestCheckBlocklistsBoundedByResolverTimeout points the resolver at a
// socket that never answers: every look-up gives up after the resolver's
// timeout, concurrently, and reports a failed look-up.
func TestCheckBlocklistsBoundedByResolverTimeout(t *testing.T) {
	t.Parallel()
	silent, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	t.Cleanup(func() { _ = silent.Close() })
	// Eight look-ups one after another would take eight timeouts; a second
	// each keeps that far from what a loaded CI machine adds to concurrent ones.
	const timeout = time.Second
	r, err := dnscheck.NewResolver(silent.LocalAddr().String(), timeout)
	if err != nil {
		t.Fatalf("NewResolver: %v", err)
	}

	start := time.Now()
	got := CheckBlocklists(context.Background(), r, DefaultLists(), []string{"192.0.2.1", "192.0.2.2"}, "example.com")
	elapsed := time.Since(start)
	if len(got) != 8 {
		t.Fatalf("got %d listings, want 8", len(got))
	}
	for _, l := range got {
		if l.Listed || l.Detail != DetailLookupFailed {
			t.Errorf("%+v, want not listed with %q", l, DetailLookupFailed)
		}
	}
	if elapsed > 5*timeout {
		t.Errorf("took %v: look-ups were not concurrent or not bounded by %v", elapsed, timeout)
	}
}

func TestCheckBlocklistsCancelledContext(t *testing.T) {
	t.Parallel()
	server, r := newDNSBL(t)
	server.SetA("1.2.0.192.ip.test", "127.0.0.2")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got := CheckBlocklists(ctx, r, []List{{Zone: "ip.test", Kind: KindIP}}, []string{"192.0.2.1"}, "")
	checkListings(t, got, []Listing{{List: "ip.test", Target: "192.0.2.1", Detail: DetailLookupFailed}})
}
