package dnscheck

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testutil"
	"github.com/miekg/dns"
)

// newTestResolver starts an in-process DNS server and a resolver asking it.
func newTestResolver(t *testing.T) (*testutil.DNSServer, *Resolver) {
	t.Helper()
	srv := testutil.NewDNSServer(t)
	r, err := NewResolver(srv.Addr(), 2*time.Second)
	if err != nil {
		t.Fatalf("NewResolver: %v", err)
	}
	return srv, r
}

// silentServer is a UDP address that never answers, to provoke timeouts.
func silentServer(t *testing.T) string {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn.LocalAddr().String()
}

func TestNewResolverServers(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"example.com", ":53", "127.0.0.1:", "a:b:c"} {
		if _, err := NewResolver(bad, time.Second); err == nil {
			t.Errorf("NewResolver(%q) accepted", bad)
		}
	}
	r, err := NewResolver("127.0.0.1:5353", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Servers(); !slices.Equal(got, []string{"127.0.0.1:5353"}) {
		t.Errorf("Servers = %v", got)
	}
	if r.timeout != DefaultTimeout {
		t.Errorf("timeout = %v, want the default", r.timeout)
	}
	system, err := NewResolver("", time.Second)
	if err != nil {
		t.Fatalf("system resolver: %v", err)
	}
	for _, s := range system.Servers() {
		if _, _, err := net.SplitHostPort(s); err != nil {
			t.Errorf("system server %q is not host:port", s)
		}
	}
	if len(system.Servers()) == 0 {
		t.Error("system resolver has no server")
	}
}

func TestLookupTXT(t *testing.T) {
	t.Parallel()
	srv, r := newTestResolver(t)
	odd := "quote\" back\\slash \x01 é;"
	srv.SetTXT("_carteiro.Example.com", "carteiro-verification=abc", odd)

	got, err := r.LookupTXT(context.Background(), "_CARTEIRO.example.com.")
	if err != nil {
		t.Fatalf("LookupTXT: %v", err)
	}
	slices.Sort(got)
	want := []string{"carteiro-verification=abc", odd}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("LookupTXT = %q, want %q", got, want)
	}
}

func TestLookupTXTJoinsCharacterStrings(t *testing.T) {
	t.Parallel()
	srv, r := newTestResolver(t)
	long := "v=DKIM1; k=rsa; p=" + strings.Repeat("MIIBIjANBgkqhkiG9w0B", 20)
	srv.SetTXT("cart1._domainkey.example.com", long)

	// The server really publishes several character-strings in one record.
	raw := new(dns.Msg)
	raw.SetQuestion("cart1._domainkey.example.com.", dns.TypeTXT)
	raw.SetEdns0(4096, false)
	resp, err := dns.Exchange(raw, srv.Addr())
	if err != nil || len(resp.Answer) != 1 || len(resp.Answer[0].(*dns.TXT).Txt) < 2 {
		t.Fatalf("expected one TXT record of several strings, got %v, %v", resp, err)
	}

	got, err := r.LookupTXT(context.Background(), "cart1._domainkey.example.com")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != long {
		t.Fatalf("LookupTXT = %q, want the joined value", got)
	}
}

func TestLookupRetriesTruncatedAnswersOverTCP(t *testing.T) {
	t.Parallel()
	srv, r := newTestResolver(t)
	var values []string
	for i := range 12 {
		values = append(values, strings.Repeat(string(rune('a'+i)), 200))
	}
	srv.SetTXT("big.example.com", values...)

	got, err := r.LookupTXT(context.Background(), "big.example.com")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if !slices.Equal(got, values) {
		t.Fatalf("got %d values, want all %d", len(got), len(values))
	}
	var nets []string
	for _, q := range srv.Queries() {
		nets = append(nets, q.Net)
	}
	if !slices.Equal(nets, []string{"udp", "tcp"}) {
		t.Fatalf("transports used = %v, want udp then tcp", nets)
	}
}

func TestLookupNotFound(t *testing.T) {
	t.Parallel()
	srv, r := newTestResolver(t)
	srv.SetA("host.example.com", "192.0.2.1")
	ctx := context.Background()

	// NXDOMAIN.
	_, err := r.LookupTXT(ctx, "missing.example.com")
	if !errors.Is(err, ErrNotFound) || errors.Is(err, ErrTemporary) {
		t.Errorf("NXDOMAIN: error = %v, want ErrNotFound only", err)
	}
	// The name exists without data of the type (NODATA).
	if _, err := r.LookupTXT(ctx, "host.example.com"); !errors.Is(err, ErrNotFound) {
		t.Errorf("NODATA TXT: error = %v, want ErrNotFound", err)
	}
	if _, err := r.LookupCNAME(ctx, "host.example.com"); !errors.Is(err, ErrNotFound) {
		t.Errorf("NODATA CNAME: error = %v, want ErrNotFound", err)
	}
	if _, err := r.LookupMX(ctx, "host.example.com"); !errors.Is(err, ErrNotFound) {
		t.Errorf("NODATA MX: error = %v, want ErrNotFound", err)
	}
	if _, err := r.LookupHost(ctx, "missing.example.com"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing host: error = %v, want ErrNotFound", err)
	}
}

func TestLookupServerFailureIsTemporary(t *testing.T) {
	t.Parallel()
	srv, r := newTestResolver(t)
	srv.SetTXT("broken.example.com", "x")
	srv.SetFailure("broken.example.com", dns.RcodeServerFailure)
	srv.SetFailure("refused.example.com", dns.RcodeRefused)

	for _, name := range []string{"broken.example.com", "refused.example.com"} {
		_, err := r.LookupTXT(context.Background(), name)
		if !errors.Is(err, ErrTemporary) || errors.Is(err, ErrNotFound) {
			t.Errorf("%s: error = %v, want ErrTemporary only", name, err)
		}
	}
}

func TestLookupTimeoutIsTemporary(t *testing.T) {
	t.Parallel()
	r, err := NewResolver(silentServer(t), 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = r.LookupTXT(context.Background(), "example.com")
	if !errors.Is(err, ErrTemporary) {
		t.Fatalf("error = %v, want ErrTemporary", err)
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Fatalf("timeout took %v", elapsed)
	}
}

func TestLookupHonoursContext(t *testing.T) {
	t.Parallel()
	r, err := NewResolver(silentServer(t), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := r.LookupTXT(ctx, "example.com"); !errors.Is(err, ErrTemporary) {
		t.Fatalf("error = %v, want ErrTemporary", err)
	}
	// The resolver's own timeout is 10 s: well under it means the context won.
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Fatalf("the context deadline was ignored: %v", elapsed)
	}
}

func TestLookupCNAME(t *testing.T) {
	t.Parallel()
	srv, r := newTestResolver(t)
	srv.SetCNAME("bounces.example.com", "Bounces.Carteiro.Test.")
	got, err := r.LookupCNAME(context.Background(), "BOUNCES.example.com")
	if err != nil {
		t.Fatal(err)
	}
	if got != "bounces.carteiro.test" {
		t.Fatalf("LookupCNAME = %q, want bounces.carteiro.test", got)
	}
	if _, err := r.LookupCNAME(context.Background(), "nothing.example.com"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing CNAME: error = %v, want ErrNotFound", err)
	}
}

func TestLookupTXTFollowsCNAME(t *testing.T) {
	t.Parallel()
	srv, r := newTestResolver(t)
	// Some customers delegate the DKIM record to a key host.
	srv.SetCNAME("cart1._domainkey.example.com", "keys.provider.test")
	srv.SetTXT("keys.provider.test", "v=DKIM1; p=KEY")
	got, err := r.LookupTXT(context.Background(), "cart1._domainkey.example.com")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"v=DKIM1; p=KEY"}) {
		t.Fatalf("LookupTXT through CNAME = %q", got)
	}
}

func TestLookupMXSortedByPreference(t *testing.T) {
	t.Parallel()
	srv, r := newTestResolver(t)
	srv.SetMX("example.com",
		testutil.MX{Host: "mx3.example.com", Pref: 30},
		testutil.MX{Host: "MX1.example.com.", Pref: 10},
		testutil.MX{Host: "mx2.example.com", Pref: 20},
	)
	mxs, err := r.LookupMX(context.Background(), "example.com")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, mx := range mxs {
		got = append(got, mx.Host)
	}
	if want := []string{"mx1.example.com", "mx2.example.com", "mx3.example.com"}; !slices.Equal(got, want) {
		t.Fatalf("LookupMX = %v, want %v", got, want)
	}
	if mxs[0].Pref != 10 || mxs[2].Pref != 30 {
		t.Fatalf("preferences %d, %d", mxs[0].Pref, mxs[2].Pref)
	}
}

func TestLookupHost(t *testing.T) {
	t.Parallel()
	srv, r := newTestResolver(t)
	srv.SetA("mx.example.com", "2001:db8::1", "192.0.2.7", "192.0.2.8")
	srv.SetA("v6only.example.com", "2001:db8::2")
	ctx := context.Background()

	got, err := r.LookupHost(ctx, "mx.example.com")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got[:2])
	if want := []string{"192.0.2.7", "192.0.2.8", "2001:db8::1"}; !slices.Equal(got, want) {
		t.Fatalf("LookupHost = %v, want %v", got, want)
	}
	if got, err := r.LookupHost(ctx, "v6only.example.com"); err != nil || !slices.Equal(got, []string{"2001:db8::2"}) {
		t.Fatalf("IPv6 only: %v, %v", got, err)
	}
	srv.SetFailure("down.example.com", dns.RcodeServerFailure)
	if _, err := r.LookupHost(ctx, "down.example.com"); !errors.Is(err, ErrTemporary) {
		t.Fatalf("SERVFAIL host: error = %v, want ErrTemporary", err)
	}
}

func TestLookupRefusesInvalidName(t *testing.T) {
	t.Parallel()
	_, r := newTestResolver(t)
	for _, name := range []string{"", "a..b", strings.Repeat("a", 64) + ".com"} {
		_, err := r.LookupTXT(context.Background(), name)
		if err == nil || errors.Is(err, ErrTemporary) || errors.Is(err, ErrNotFound) {
			t.Errorf("LookupTXT(%q) error = %v, want a plain error", name, err)
		}
	}
}
