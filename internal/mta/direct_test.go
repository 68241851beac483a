package mta

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/dnscheck"
	"github.com/carteiro/carteiro/internal/testutil"
	"github.com/miekg/dns"
)

// directBed is a DNS server, an SMTP server on 127.0.0.1 and a Direct
// transport using both (every exchanger is reached on the server's port).
type directBed struct {
	dns    *testutil.DNSServer
	srv    *testutil.SMTPServer
	direct *Direct
}

func newDirectBed(t *testing.T, tlsConfig *tls.Config, smtpOpts ...testutil.SMTPOption) directBed {
	t.Helper()
	dnsServer := testutil.NewDNSServer(t)
	srv := testutil.NewSMTPServer(t, smtpOpts...)
	resolver, err := dnscheck.NewResolver(dnsServer.Addr(), 2*time.Second)
	if err != nil {
		t.Fatalf("resolver: %v", err)
	}
	direct := NewDirect(resolver, DirectOptions{
		Port:           srv.Port(),
		HeloName:       "mta.test",
		TLSConfig:      tlsConfig,
		DialTimeout:    time.Second,
		CommandTimeout: 2 * time.Second,
		DataTimeout:    2 * time.Second,
	})
	return directBed{dns: dnsServer, srv: srv, direct: direct}
}

func TestDirectTriesExchangersInPreferenceOrder(t *testing.T) {
	t.Parallel()
	bed := newDirectBed(t, nil)
	bed.dns.SetMX("example.org",
		testutil.MX{Host: "mx2.example.org", Pref: 20},
		testutil.MX{Host: "mx0.example.org", Pref: 5},  // no address at all
		testutil.MX{Host: "mx1.example.org", Pref: 10}, // nothing listens there
	)
	bed.dns.SetA("mx1.example.org", "127.0.0.2")
	bed.dns.SetA("mx2.example.org", "127.0.0.1")

	results := bed.direct.Deliver(testContext(t), Envelope{From: "s@example.com", Recipients: []string{"ana@example.org"}}, builtMessage(t))
	assertClasses(t, results, map[string]Class{"ana@example.org": ClassAccepted})
	if r := results[0]; r.Host != "mx2.example.org" || r.Code != 250 {
		t.Errorf("result %+v, want accepted by mx2.example.org", r)
	}
	if n := bed.srv.Connections(); n != 1 {
		t.Errorf("%d connections reached the working exchanger, want 1", n)
	}
	if bed.dns.QueryCount("mx0.example.org", dns.TypeA) == 0 || bed.dns.QueryCount("mx1.example.org", dns.TypeA) == 0 {
		t.Error("the preferred exchangers were not tried first")
	}
}

func TestDirectOneTransactionPerDomain(t *testing.T) {
	t.Parallel()
	bed := newDirectBed(t, nil)
	for _, domain := range []string{"one.test", "two.test"} {
		bed.dns.SetMX(domain, testutil.MX{Host: "mx." + domain, Pref: 10})
		bed.dns.SetA("mx."+domain, "127.0.0.1")
	}
	env := Envelope{From: "s@example.com", Recipients: []string{"a@one.test", "b@two.test", "c@ONE.test"}}
	data := builtMessage(t)
	results := bed.direct.Deliver(testContext(t), env, data)
	assertClasses(t, results, map[string]Class{"a@one.test": ClassAccepted, "b@two.test": ClassAccepted, "c@ONE.test": ClassAccepted})
	wantHosts := []string{"mx.one.test", "mx.two.test", "mx.one.test"}
	for i, r := range results {
		if r.Recipient != env.Recipients[i] || r.Host != wantHosts[i] {
			t.Errorf("result %d = %+v, want %s via %s", i, r, env.Recipients[i], wantHosts[i])
		}
	}
	msgs := bed.srv.Messages()
	if len(msgs) != 2 {
		t.Fatalf("%d transactions, want one per domain", len(msgs))
	}
	byRcpts := map[string]bool{}
	for _, m := range msgs {
		byRcpts[strings.Join(m.To, ",")] = true
		if string(m.Data) != string(data) || m.From != env.From {
			t.Errorf("transaction %v carried other data or sender", m.To)
		}
	}
	if !byRcpts["a@one.test,c@ONE.test"] || !byRcpts["b@two.test"] {
		t.Errorf("transactions %v", byRcpts)
	}
}

func TestDirectRoutingFailures(t *testing.T) {
	t.Parallel()
	bed := newDirectBed(t, nil)
	bed.dns.SetMX("null.test", testutil.MX{Host: ".", Pref: 0})
	bed.dns.SetFailure("broken.test", dns.RcodeServerFailure)
	bed.dns.SetMX("down.test", testutil.MX{Host: "mx.down.test", Pref: 10})
	bed.dns.SetA("mx.down.test", "127.0.0.2")
	bed.dns.SetMX("noaddr.test", testutil.MX{Host: "mx.noaddr.test", Pref: 10})
	bed.dns.SetA("implicit.test", "127.0.0.1") // no MX: the domain itself

	env := Envelope{From: "s@example.com", Recipients: []string{
		"a@null.test", "b@nowhere.test", "c@broken.test", "d@down.test", "e@noaddr.test", "f@implicit.test",
	}}
	results := bed.direct.Deliver(testContext(t), env, builtMessage(t))
	want := []struct {
		class    Class
		enhanced string
	}{
		{ClassPermanent, "5.1.10"}, // null MX (RFC 7505)
		{ClassPermanent, "5.1.2"},  // neither MX nor address
		{ClassTemporary, "4.4.3"},  // DNS server failure
		{ClassTemporary, "4.4.1"},  // exchanger unreachable
		{ClassTemporary, "4.4.3"},  // exchanger without address: its DNS may be fixed
		{ClassAccepted, "2.0.0"},   // implicit MX
	}
	for i, w := range want {
		if r := results[i]; r.Class != w.class || r.Enhanced != w.enhanced || r.Recipient != env.Recipients[i] {
			t.Errorf("%s: %+v, want %s %s", env.Recipients[i], r, w.class, w.enhanced)
		}
	}
	if results[3].Host != "mx.down.test" || results[5].Host != "implicit.test" {
		t.Errorf("hosts %q and %q", results[3].Host, results[5].Host)
	}
	if n := len(bed.srv.Messages()); n != 1 {
		t.Errorf("%d messages delivered, want only the implicit-MX one", n)
	}
}

func TestDirectOpportunisticTLS(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		config      func(srv *testutil.SMTPServer) *tls.Config
		wantTLS     bool
		connections int
	}{
		{"verified", func(srv *testutil.SMTPServer) *tls.Config {
			return &tls.Config{RootCAs: srv.CertPool(), ServerName: "localhost"}
		}, true, 1},
		{"unverified by default", func(*testutil.SMTPServer) *tls.Config { return nil }, true, 1},
		// A handshake that fails is retried once in clear text.
		{"untrusted falls back", func(*testutil.SMTPServer) *tls.Config {
			return &tls.Config{RootCAs: x509.NewCertPool()}
		}, false, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// The TLS configuration needs the server's pool, so build the
			// transport after the server.
			bed := newDirectBed(t, nil, testutil.WithTLS())
			bed.direct.tls = tc.config(bed.srv)
			bed.dns.SetMX("tls.test", testutil.MX{Host: "mx.tls.test", Pref: 10})
			bed.dns.SetA("mx.tls.test", "127.0.0.1")
			results := bed.direct.Deliver(testContext(t), Envelope{From: "s@example.com", Recipients: []string{"a@tls.test"}}, builtMessage(t))
			assertClasses(t, results, map[string]Class{"a@tls.test": ClassAccepted})
			msgs := bed.srv.Messages()
			if len(msgs) != 1 || msgs[0].TLS != tc.wantTLS || results[0].TLS != tc.wantTLS {
				t.Errorf("TLS: server %v, result %v; want %v", len(msgs) == 1 && msgs[0].TLS, results[0].TLS, tc.wantTLS)
			}
			if n := bed.srv.Connections(); n != tc.connections {
				t.Errorf("%d connections, want %d", n, tc.connections)
			}
		})
	}
}

func TestDirectSkipsExchangerWithTemporaryGreeting(t *testing.T) {
	t.Parallel()
	bed := newDirectBed(t, nil)
	// A second server on another loopback address and the same port
	// greets with 421, as a busy exchanger does.
	busy, err := net.Listen("tcp", net.JoinHostPort("127.0.0.3", strconv.Itoa(bed.srv.Port())))
	if err != nil {
		t.Fatalf("listen on 127.0.0.3: %v", err)
	}
	t.Cleanup(func() { _ = busy.Close() })
	go func() {
		for {
			conn, err := busy.Accept()
			if err != nil {
				return
			}
			_, _ = conn.Write([]byte("421 4.3.2 too busy, try another MX\r\n"))
			_ = conn.Close()
		}
	}()
	bed.dns.SetMX("busy.test", testutil.MX{Host: "busy.busy.test", Pref: 10}, testutil.MX{Host: "idle.busy.test", Pref: 20})
	bed.dns.SetA("busy.busy.test", "127.0.0.3")
	bed.dns.SetA("idle.busy.test", "127.0.0.1")

	results := bed.direct.Deliver(testContext(t), Envelope{From: "s@example.com", Recipients: []string{"a@busy.test"}}, builtMessage(t))
	if r := results[0]; r.Class != ClassAccepted || r.Host != "idle.busy.test" {
		t.Errorf("result %+v, want accepted by idle.busy.test", r)
	}

	// With only the busy one, its reply is reported, as temporary. (Another
	// domain: busy.test's exchangers are cached for routeTTL, D80.)
	bed.dns.SetMX("busy2.test", testutil.MX{Host: "busy.busy.test", Pref: 10})
	results = bed.direct.Deliver(testContext(t), Envelope{From: "s@example.com", Recipients: []string{"a@busy2.test"}}, builtMessage(t))
	if r := results[0]; r.Class != ClassTemporary || r.Code != 421 || r.Enhanced != "4.3.2" || !strings.Contains(r.Message, "too busy") {
		t.Errorf("result %+v", r)
	}
}

func TestDirectPerRecipientFaults(t *testing.T) {
	t.Parallel()
	bed := newDirectBed(t, nil)
	bed.dns.SetMX("example.org", testutil.MX{Host: "mx.example.org", Pref: 10})
	bed.dns.SetA("mx.example.org", "127.0.0.1")
	bed.srv.Script("gone@example.org", testutil.Reply{Stage: testutil.StageRcpt, Code: 550, Enhanced: "5.1.1", Message: "no such user"})
	bed.srv.Script("full@example.org", testutil.Reply{Stage: testutil.StageRcpt, Code: 452, Enhanced: "4.2.2", Message: "mailbox full"})
	bed.srv.Script("spam@example.org", testutil.Reply{Stage: testutil.StageRcpt, Code: 550, Enhanced: "5.7.1", Message: "blocked"})
	env := Envelope{From: "s@example.com", Recipients: []string{"ok@example.org", "gone@example.org", "full@example.org", "spam@example.org"}}
	results := bed.direct.Deliver(testContext(t), env, builtMessage(t))
	assertClasses(t, results, map[string]Class{
		"ok@example.org": ClassAccepted, "gone@example.org": ClassPermanent,
		"full@example.org": ClassTemporary, "spam@example.org": ClassBlock,
	})
	if r := results[2]; r.Code != 452 || r.Enhanced != "4.2.2" || r.Message != "mailbox full" || r.Host != "mx.example.org" {
		t.Errorf("temporary result %+v", r)
	}
}

func TestDirectStallTimesOut(t *testing.T) {
	t.Parallel()
	bed := newDirectBed(t, nil, testutil.StallAfter(testutil.StageData, 30*time.Second))
	bed.direct.limits.data = 300 * time.Millisecond
	bed.dns.SetMX("example.org", testutil.MX{Host: "mx.example.org", Pref: 10})
	bed.dns.SetA("mx.example.org", "127.0.0.1")
	start := time.Now()
	results := bed.direct.Deliver(testContext(t), Envelope{From: "s@example.com", Recipients: []string{"a@example.org", "b@example.org"}}, builtMessage(t))
	// The server stalls for 30 s; the slack absorbs a loaded CI machine.
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("Deliver took %s with a 300ms data timeout", elapsed)
	}
	assertClasses(t, results, map[string]Class{"a@example.org": ClassTemporary, "b@example.org": ClassTemporary})
}
