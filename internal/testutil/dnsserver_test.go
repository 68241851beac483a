package testutil

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// exchange asks the server one question over network ("udp" or "tcp").
func exchange(t *testing.T, s *DNSServer, network, name string, qtype uint16) *dns.Msg {
	t.Helper()
	client := &dns.Client{Net: network, Timeout: 2 * time.Second}
	req := new(dns.Msg)
	req.SetQuestion(dns.Fqdn(name), qtype)
	reply, _, err := client.Exchange(req, s.Addr())
	if err != nil {
		t.Fatalf("exchange %s %s over %s: %v", name, dns.TypeToString[qtype], network, err)
	}
	return reply
}

// resolverFor is a Go resolver that asks only s, the way production code is
// pointed at a configured resolver (D32).
func resolverFor(s *DNSServer) *net.Resolver {
	return &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, s.Addr())
		},
	}
}

func lookupCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestDNSServerListensOnSamePortForUDPAndTCP(t *testing.T) {
	t.Parallel()
	s := NewDNSServer(t)
	host, _, err := net.SplitHostPort(s.Addr())
	if err != nil || host != "127.0.0.1" {
		t.Fatalf("Addr() = %q, want 127.0.0.1:PORT (err %v)", s.Addr(), err)
	}
	s.SetTXT("example.com", "hello")
	for _, network := range []string{"udp", "tcp"} {
		reply := exchange(t, s, network, "example.com", dns.TypeTXT)
		if reply.Rcode != dns.RcodeSuccess || len(reply.Answer) != 1 {
			t.Fatalf("%s: rcode %s, %d answers; want NOERROR with 1", network, dns.RcodeToString[reply.Rcode], len(reply.Answer))
		}
	}
	got := s.Queries()
	want := []Query{
		{Name: "example.com.", Type: dns.TypeTXT, Net: "udp"},
		{Name: "example.com.", Type: dns.TypeTXT, Net: "tcp"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Queries() = %+v, want %+v", got, want)
	}
}

func TestDNSServerTXTAnswerIsAuthoritativeWithTTL300(t *testing.T) {
	t.Parallel()
	s := NewDNSServer(t)
	s.SetTXT("_dmarc.Example.COM.", "v=DMARC1; p=none;")

	reply := exchange(t, s, "udp", "_DMARC.example.com", dns.TypeTXT)
	if !reply.Authoritative {
		t.Error("answer is not authoritative")
	}
	if len(reply.Answer) != 1 {
		t.Fatalf("got %d answers, want 1", len(reply.Answer))
	}
	txt, ok := reply.Answer[0].(*dns.TXT)
	if !ok {
		t.Fatalf("answer is %T, want *dns.TXT", reply.Answer[0])
	}
	if txt.Hdr.Ttl != 300 {
		t.Errorf("TTL = %d, want 300", txt.Hdr.Ttl)
	}
	if txt.Hdr.Name != "_DMARC.example.com." {
		t.Errorf("owner = %q, want the question's spelling _DMARC.example.com.", txt.Hdr.Name)
	}
	if !slices.Equal(txt.Txt, []string{"v=DMARC1; p=none;"}) {
		t.Errorf("TXT = %q", txt.Txt)
	}
}

func TestDNSServerSplitsLongTXTIntoCharacterStrings(t *testing.T) {
	t.Parallel()
	s := NewDNSServer(t)
	key := "v=DKIM1; k=rsa; p=" + strings.Repeat("MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A", 12) // 18+384 bytes
	s.SetTXT("cart1._domainkey.example.com", key)

	reply := exchange(t, s, "tcp", "cart1._domainkey.example.com", dns.TypeTXT)
	if len(reply.Answer) != 1 {
		t.Fatalf("got %d records, want one record holding the split value", len(reply.Answer))
	}
	parts := reply.Answer[0].(*dns.TXT).Txt
	if len(parts) != 2 || len(parts[0]) != 255 || strings.Join(parts, "") != key {
		t.Fatalf("character-strings have lengths %d, want [255 %d] joining to the key", lengths(parts), len(key)-255)
	}

	// A real resolver joins the strings of one record back together.
	got, err := resolverFor(s).LookupTXT(lookupCtx(t), "cart1._domainkey.example.com.")
	if err != nil {
		t.Fatalf("LookupTXT: %v", err)
	}
	if len(got) != 1 || got[0] != key {
		t.Fatalf("LookupTXT = %q, want the whole key", got)
	}
}

func lengths(parts []string) []int {
	out := make([]int, len(parts))
	for i, p := range parts {
		out[i] = len(p)
	}
	return out
}

func TestDNSServerTXTKeepsBackslashesAndEmptyValues(t *testing.T) {
	t.Parallel()
	s := NewDNSServer(t)
	s.SetTXT("odd.example.com", `a\b\065`, "")

	got, err := resolverFor(s).LookupTXT(lookupCtx(t), "odd.example.com.")
	if err != nil {
		t.Fatalf("LookupTXT: %v", err)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"", `a\b\065`}) {
		t.Fatalf("LookupTXT = %q, want the exact bytes set", got)
	}
}

func TestDNSServerNXDOMAINVersusEmptyAnswer(t *testing.T) {
	t.Parallel()
	s := NewDNSServer(t)
	s.SetTXT("example.com", "v=spf1 -all")

	missing := exchange(t, s, "udp", "nothing.example.com", dns.TypeTXT)
	if missing.Rcode != dns.RcodeNameError {
		t.Errorf("unknown name: rcode %s, want NXDOMAIN", dns.RcodeToString[missing.Rcode])
	}
	if !missing.Authoritative {
		t.Error("NXDOMAIN is not authoritative")
	}

	noData := exchange(t, s, "udp", "example.com", dns.TypeMX)
	if noData.Rcode != dns.RcodeSuccess || len(noData.Answer) != 0 {
		t.Errorf("existing name, other type: rcode %s with %d answers, want NOERROR with none",
			dns.RcodeToString[noData.Rcode], len(noData.Answer))
	}

	_, err := resolverFor(s).LookupTXT(lookupCtx(t), "nothing.example.com.")
	var dnsErr *net.DNSError
	if !errors.As(err, &dnsErr) || !dnsErr.IsNotFound {
		t.Fatalf("Go resolver on NXDOMAIN: err %v, want a not-found DNSError", err)
	}
}

func TestDNSServerFollowsCNAME(t *testing.T) {
	t.Parallel()
	s := NewDNSServer(t)
	s.SetCNAME("_dmarc.example.com", "_dmarc.provider.net")
	s.SetTXT("_dmarc.provider.net", "v=DMARC1; p=reject;")

	reply := exchange(t, s, "udp", "_dmarc.example.com", dns.TypeTXT)
	if len(reply.Answer) != 2 {
		t.Fatalf("got %d answers, want CNAME + TXT", len(reply.Answer))
	}
	cname, ok := reply.Answer[0].(*dns.CNAME)
	if !ok || cname.Target != "_dmarc.provider.net." {
		t.Fatalf("first answer = %v, want CNAME to _dmarc.provider.net.", reply.Answer[0])
	}
	if txt, ok := reply.Answer[1].(*dns.TXT); !ok || txt.Hdr.Name != "_dmarc.provider.net." {
		t.Fatalf("second answer = %v, want TXT owned by the target", reply.Answer[1])
	}

	r := resolverFor(s)
	got, err := r.LookupTXT(lookupCtx(t), "_dmarc.example.com.")
	if err != nil || !slices.Equal(got, []string{"v=DMARC1; p=reject;"}) {
		t.Fatalf("LookupTXT through CNAME = %q, %v", got, err)
	}
	target, err := r.LookupCNAME(lookupCtx(t), "_dmarc.example.com.")
	if err != nil || target != "_dmarc.provider.net." {
		t.Fatalf("LookupCNAME = %q, %v", target, err)
	}

	// A CNAME to a name the server does not know: just the alias, NOERROR.
	s.SetCNAME("www.example.com", "elsewhere.example.org")
	dangling := exchange(t, s, "udp", "www.example.com", dns.TypeA)
	if dangling.Rcode != dns.RcodeSuccess || len(dangling.Answer) != 1 {
		t.Fatalf("dangling CNAME: rcode %s with %d answers, want NOERROR with the CNAME only",
			dns.RcodeToString[dangling.Rcode], len(dangling.Answer))
	}
}

func TestDNSServerCNAMELoopEnds(t *testing.T) {
	t.Parallel()
	s := NewDNSServer(t)
	s.SetCNAME("a.example.com", "b.example.com")
	s.SetCNAME("b.example.com", "a.example.com")

	reply := exchange(t, s, "udp", "a.example.com", dns.TypeTXT)
	if len(reply.Answer) != 2 {
		t.Fatalf("loop a->b->a: got %d answers, want the 2 CNAMEs once each", len(reply.Answer))
	}
}

func TestDNSServerCNAMEExcludesOtherData(t *testing.T) {
	t.Parallel()
	s := NewDNSServer(t)
	s.SetTXT("x.example.com", "old")
	s.SetCNAME("x.example.com", "y.example.com")
	if reply := exchange(t, s, "udp", "x.example.com", dns.TypeTXT); len(reply.Answer) != 1 {
		t.Fatalf("after SetCNAME: %d answers, want only the CNAME (TXT removed)", len(reply.Answer))
	}
	s.SetTXT("x.example.com", "new")
	if reply := exchange(t, s, "udp", "x.example.com", dns.TypeCNAME); len(reply.Answer) != 0 {
		t.Fatalf("after SetTXT: CNAME still answered")
	}
}

func TestDNSServerMX(t *testing.T) {
	t.Parallel()
	s := NewDNSServer(t)
	s.SetMX("Example.com", MX{Host: "mx2.example.com", Pref: 20}, MX{Host: "MX1.example.com.", Pref: 10})

	got, err := resolverFor(s).LookupMX(lookupCtx(t), "example.com.")
	if err != nil {
		t.Fatalf("LookupMX: %v", err)
	}
	var hosts []string
	for _, mx := range got {
		hosts = append(hosts, fmt.Sprintf("%d %s", mx.Pref, mx.Host))
	}
	if !slices.Equal(hosts, []string{"10 mx1.example.com.", "20 mx2.example.com."}) {
		t.Fatalf("LookupMX = %v", hosts)
	}
}

func TestDNSServerAAndAAAA(t *testing.T) {
	t.Parallel()
	s := NewDNSServer(t)
	s.SetA("mx1.example.com", "127.0.0.1", "::1")

	got, err := resolverFor(s).LookupHost(lookupCtx(t), "mx1.example.com.")
	if err != nil {
		t.Fatalf("LookupHost: %v", err)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"127.0.0.1", "::1"}) {
		t.Fatalf("LookupHost = %v, want both families", got)
	}
	if reply := exchange(t, s, "udp", "mx1.example.com", dns.TypeAAAA); len(reply.Answer) != 1 {
		t.Fatalf("AAAA: %d answers, want 1", len(reply.Answer))
	}

	s.SetA("mx1.example.com", "127.0.0.2")
	if reply := exchange(t, s, "udp", "mx1.example.com", dns.TypeAAAA); len(reply.Answer) != 0 {
		t.Fatalf("SetA with only IPv4 kept %d AAAA records, want them replaced", len(reply.Answer))
	}
}

func TestDNSServerLargeAnswerFallsBackToTCP(t *testing.T) {
	t.Parallel()
	s := NewDNSServer(t)
	var values []string
	for i := range 12 {
		values = append(values, fmt.Sprintf("value-%02d-%s", i, strings.Repeat("x", 200)))
	}
	s.SetTXT("big.example.com", values...)

	got, err := resolverFor(s).LookupTXT(lookupCtx(t), "big.example.com.")
	if err != nil {
		t.Fatalf("LookupTXT: %v", err)
	}
	if len(got) != len(values) {
		t.Fatalf("got %d values, want %d", len(got), len(values))
	}
	var nets []string
	for _, q := range s.Queries() {
		nets = append(nets, q.Net)
	}
	if !slices.Contains(nets, "udp") || !slices.Contains(nets, "tcp") {
		t.Fatalf("transports used = %v, want a truncated UDP answer then TCP", nets)
	}
}

func TestDNSServerFailure(t *testing.T) {
	t.Parallel()
	s := NewDNSServer(t)
	s.SetTXT("example.com", "v=spf1 -all")
	s.SetFailure("EXAMPLE.com.", dns.RcodeServerFailure)

	reply := exchange(t, s, "udp", "example.com", dns.TypeTXT)
	if reply.Rcode != dns.RcodeServerFailure || len(reply.Answer) != 0 {
		t.Fatalf("rcode %s with %d answers, want SERVFAIL with none", dns.RcodeToString[reply.Rcode], len(reply.Answer))
	}
	_, err := resolverFor(s).LookupTXT(lookupCtx(t), "example.com.")
	var dnsErr *net.DNSError
	if !errors.As(err, &dnsErr) || dnsErr.IsNotFound {
		t.Fatalf("Go resolver on SERVFAIL: err %v, want a DNSError that is not 'not found'", err)
	}

	s.SetFailure("example.com", dns.RcodeSuccess)
	if reply := exchange(t, s, "udp", "example.com", dns.TypeTXT); len(reply.Answer) != 1 {
		t.Fatalf("after clearing failure: %d answers, want 1", len(reply.Answer))
	}
}

func TestDNSServerRemoveAndReset(t *testing.T) {
	t.Parallel()
	s := NewDNSServer(t)
	s.SetTXT("example.com", "a")
	s.SetMX("example.com", MX{Host: "mx.example.com", Pref: 10})

	s.Remove("Example.com.", dns.TypeTXT)
	if reply := exchange(t, s, "udp", "example.com", dns.TypeTXT); reply.Rcode != dns.RcodeSuccess || len(reply.Answer) != 0 {
		t.Fatalf("after Remove TXT: rcode %s, %d answers; want NODATA", dns.RcodeToString[reply.Rcode], len(reply.Answer))
	}
	s.Remove("example.com", dns.TypeMX)
	if reply := exchange(t, s, "udp", "example.com", dns.TypeMX); reply.Rcode != dns.RcodeNameError {
		t.Fatalf("after removing the last set: rcode %s, want NXDOMAIN", dns.RcodeToString[reply.Rcode])
	}

	s.SetTXT("example.com", "a")
	s.RemoveName("example.com")
	if reply := exchange(t, s, "udp", "example.com", dns.TypeTXT); reply.Rcode != dns.RcodeNameError {
		t.Fatalf("after RemoveName: rcode %s, want NXDOMAIN", dns.RcodeToString[reply.Rcode])
	}

	s.SetTXT("example.com", "a")
	if n := s.QueryCount("EXAMPLE.COM", dns.TypeTXT); n != 2 {
		t.Fatalf("QueryCount TXT = %d, want 2", n)
	}
	if n := s.QueryCount("example.com", dns.TypeANY); n != 3 {
		t.Fatalf("QueryCount ANY = %d, want 3", n)
	}
	s.Reset()
	if len(s.Queries()) != 0 {
		t.Fatal("Reset kept queries")
	}
	if reply := exchange(t, s, "udp", "example.com", dns.TypeTXT); reply.Rcode != dns.RcodeNameError {
		t.Fatalf("after Reset: rcode %s, want NXDOMAIN", dns.RcodeToString[reply.Rcode])
	}
}

func TestDNSServerSetterPanicsOnInvalidInput(t *testing.T) {
	t.Parallel()
	s := NewDNSServer(t)
	for name, set := range map[string]func(){
		"bad IP":   func() { s.SetA("a.example.com", "999.1.1.1") },
		"bad name": func() { s.SetTXT("a..example.com", "x") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			set()
		}()
	}
}

func TestDNSServerConcurrentUpdatesAndQueries(t *testing.T) {
	t.Parallel()
	s := NewDNSServer(t)
	r := resolverFor(s)
	ctx := lookupCtx(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			name := fmt.Sprintf("n%d.example.com", i)
			for j := range 10 {
				s.SetTXT(name, fmt.Sprint(j))
				got, err := r.LookupTXT(ctx, name+".")
				if err != nil || len(got) != 1 {
					t.Errorf("%s: %q, %v", name, got, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := len(s.Queries()); n != 80 {
		t.Fatalf("recorded %d queries, want 80", n)
	}
}

// A benchmark that asks millions of questions stops the query log, which
// would otherwise grow the memory it measures (issue 28); the answers
// stay the same.
func TestDNSServerStopRecordingQueries(t *testing.T) {
	t.Parallel()
	s := NewDNSServer(t)
	s.SetTXT("example.com", "v=spf1 -all")
	exchange(t, s, "udp", "example.com", dns.TypeTXT)
	s.StopRecordingQueries()
	for range 3 {
		reply := exchange(t, s, "udp", "example.com", dns.TypeTXT)
		if reply.Rcode != dns.RcodeSuccess || len(reply.Answer) != 1 {
			t.Fatalf("after StopRecordingQueries: rcode %s, %d answers, want the TXT record", dns.RcodeToString[reply.Rcode], len(reply.Answer))
		}
	}
	if n := len(s.Queries()); n != 0 {
		t.Fatalf("recorded %d queries after StopRecordingQueries, want none", n)
	}
}
