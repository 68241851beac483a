package mta

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"math/big"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testutil"
)

// shortTimeouts keep fault tests fast.
var shortTimeouts = RelayOptions{DialTimeout: 2 * time.Second, CommandTimeout: 2 * time.Second, DataTimeout: 2 * time.Second}

// newPlainRelay returns a relay to srv over smtp+plain, closed at cleanup.
func newPlainRelay(t *testing.T, srv *testutil.SMTPServer, opts RelayOptions) *Relay {
	t.Helper()
	return newRelay(t, "smtp+plain://"+srv.Addr(), opts)
}

func newRelay(t *testing.T, url string, opts RelayOptions) *Relay {
	t.Helper()
	if opts.DialTimeout == 0 {
		opts.DialTimeout, opts.CommandTimeout, opts.DataTimeout = shortTimeouts.DialTimeout, shortTimeouts.CommandTimeout, shortTimeouts.DataTimeout
	}
	opts.HeloName = "mta.test"
	r, err := NewRelay(url, opts)
	if err != nil {
		t.Fatalf("NewRelay(%q): %v", url, err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// builtMessage returns the sample message, built.
func builtMessage(t testing.TB) []byte {
	t.Helper()
	raw, err := Build(sampleMessage())
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return raw
}

func TestRelayPlainDeliversExactBytes(t *testing.T) {
	t.Parallel()
	srv := testutil.NewSMTPServer(t)
	relay := newPlainRelay(t, srv, RelayOptions{})
	data := builtMessage(t)
	// A line starting with a dot must survive dot-stuffing.
	data = append(data, ".hidden line\r\n..two dots\r\n"...)
	env := Envelope{From: "bounces+tok@bounces.example.com", Recipients: []string{"ana@example.org", "bob@example.net", "secret-bcc@example.org"}}

	results := relay.Deliver(testContext(t), env, data)
	assertClasses(t, results, map[string]Class{
		"ana@example.org": ClassAccepted, "bob@example.net": ClassAccepted, "secret-bcc@example.org": ClassAccepted,
	})
	for i, r := range results {
		if r.Recipient != env.Recipients[i] || r.Code != 250 || r.Host != "127.0.0.1" || r.TLS || r.DSN {
			t.Errorf("result %d = %+v", i, r)
		}
	}
	msgs := srv.Messages()
	if len(msgs) != 1 {
		t.Fatalf("server received %d messages", len(msgs))
	}
	got := msgs[0]
	if !bytes.Equal(got.Data, data) {
		t.Errorf("received data differs from what was sent (%d vs %d bytes)", len(got.Data), len(data))
	}
	if got.From != env.From || strings.Join(got.To, ",") != strings.Join(env.Recipients, ",") {
		t.Errorf("envelope MAIL %q RCPT %q", got.From, got.To)
	}
	if got.Helo != "mta.test" {
		t.Errorf("EHLO name %q", got.Helo)
	}
	if got.MailOptions.Size != int64(len(data)) {
		t.Errorf("SIZE=%d, want %d", got.MailOptions.Size, len(data))
	}
}

func TestRelaySTARTTLSAndAuth(t *testing.T) {
	t.Parallel()
	srv := testutil.NewSMTPServer(t, testutil.WithTLS(), testutil.WithAuth("relay-user", "p@ss:w/rd"))
	url := fmt.Sprintf("smtp://relay-user:%s@%s", "p%40ss%3Aw%2Frd", srv.Addr())
	relay := newRelay(t, url, RelayOptions{TLSConfig: &tls.Config{RootCAs: srv.CertPool()}})

	results := relay.Deliver(testContext(t), Envelope{From: "a@example.com", Recipients: []string{"b@example.org"}}, builtMessage(t))
	assertClasses(t, results, map[string]Class{"b@example.org": ClassAccepted})
	if !results[0].TLS {
		t.Error("result does not report TLS")
	}
	msgs := srv.Messages()
	if len(msgs) != 1 || !msgs[0].TLS || msgs[0].AuthUser != "relay-user" {
		t.Fatalf("server saw %+v", msgs)
	}
}

func TestRelayRefusesWithoutSTARTTLS(t *testing.T) {
	t.Parallel()
	srv := testutil.NewSMTPServer(t, testutil.WithAuth("u", "p"))
	relay := newRelay(t, "smtp://u:p@"+srv.Addr(), RelayOptions{})
	results := relay.Deliver(testContext(t), Envelope{From: "a@example.com", Recipients: []string{"b@example.org", "c@example.org"}}, builtMessage(t))
	assertClasses(t, results, map[string]Class{"b@example.org": ClassTemporary, "c@example.org": ClassTemporary})
	if !strings.Contains(results[0].Message, "STARTTLS") {
		t.Errorf("message %q does not name STARTTLS", results[0].Message)
	}
	if n := len(srv.Messages()); n != 0 {
		t.Errorf("server received %d messages in clear text", n)
	}
}

func TestRelayUntrustedCertificateFails(t *testing.T) {
	t.Parallel()
	srv := testutil.NewSMTPServer(t, testutil.WithTLS())
	relay := newRelay(t, "smtp://"+srv.Addr(), RelayOptions{TLSConfig: &tls.Config{RootCAs: x509.NewCertPool()}})
	results := relay.Deliver(testContext(t), Envelope{From: "a@example.com", Recipients: []string{"b@example.org"}}, builtMessage(t))
	assertClasses(t, results, map[string]Class{"b@example.org": ClassTemporary})
	if !strings.Contains(results[0].Message, "TLS") || len(srv.Messages()) != 0 {
		t.Errorf("result %+v, %d messages", results[0], len(srv.Messages()))
	}
}

func TestRelayWrongPasswordIsTemporary(t *testing.T) {
	t.Parallel()
	srv := testutil.NewSMTPServer(t, testutil.WithAuth("u", "right"))
	relay := newRelay(t, "smtp+plain://u:wrong@"+srv.Addr(), RelayOptions{})
	results := relay.Deliver(testContext(t), Envelope{From: "a@example.com", Recipients: []string{"b@example.org"}}, builtMessage(t))
	// A 535 is the operator's problem, not the recipient's: retry, never
	// bounce or suppress.
	r := results[0]
	if r.Class != ClassTemporary || r.Code != 535 || !strings.Contains(r.Message, "AUTH") {
		t.Errorf("result %+v", r)
	}
}

func TestRelayImplicitTLS(t *testing.T) {
	t.Parallel()
	srv := testutil.NewSMTPServer(t)
	proxyAddr, roots := startTLSProxy(t, srv.Addr())
	relay := newRelay(t, "smtps://"+proxyAddr, RelayOptions{TLSConfig: &tls.Config{RootCAs: roots}})
	results := relay.Deliver(testContext(t), Envelope{From: "a@example.com", Recipients: []string{"b@example.org"}}, builtMessage(t))
	assertClasses(t, results, map[string]Class{"b@example.org": ClassAccepted})
	if !results[0].TLS {
		t.Error("result does not report TLS")
	}
	if len(srv.Messages()) != 1 {
		t.Errorf("server received %d messages", len(srv.Messages()))
	}
}

func TestRelayReusesOneConnection(t *testing.T) {
	t.Parallel()
	srv := testutil.NewSMTPServer(t)
	relay := newPlainRelay(t, srv, RelayOptions{})
	data := builtMessage(t)
	for i := range 20 {
		rcpt := fmt.Sprintf("r%d@example.org", i)
		results := relay.Deliver(testContext(t), Envelope{From: "a@example.com", Recipients: []string{rcpt}}, data)
		assertClasses(t, results, map[string]Class{rcpt: ClassAccepted})
	}
	if n := srv.Connections(); n != 1 {
		t.Errorf("20 sequential deliveries used %d connections, want 1", n)
	}
	if n := len(srv.Messages()); n != 20 {
		t.Errorf("server received %d messages, want 20", n)
	}
}

func TestRelayReuseAfterRejectedTransaction(t *testing.T) {
	t.Parallel()
	srv := testutil.NewSMTPServer(t)
	srv.Script("gone@example.org", testutil.Reply{Stage: testutil.StageRcpt, Code: 550, Enhanced: "5.1.1", Message: "no such user"})
	relay := newPlainRelay(t, srv, RelayOptions{})
	data := builtMessage(t)
	first := relay.Deliver(testContext(t), Envelope{From: "a@example.com", Recipients: []string{"gone@example.org"}}, data)
	second := relay.Deliver(testContext(t), Envelope{From: "a@example.com", Recipients: []string{"here@example.org"}}, data)
	assertClasses(t, first, map[string]Class{"gone@example.org": ClassPermanent})
	assertClasses(t, second, map[string]Class{"here@example.org": ClassAccepted})
	msgs := srv.Messages()
	if srv.Connections() != 1 || len(msgs) != 1 || msgs[0].To[0] != "here@example.org" {
		t.Errorf("%d connections, messages %+v", srv.Connections(), msgs)
	}
}

func TestRelayConcurrentDeliveriesShareThePool(t *testing.T) {
	t.Parallel()
	srv := testutil.NewSMTPServer(t)
	relay := newPlainRelay(t, srv, RelayOptions{PoolSize: 3})
	data := builtMessage(t)
	ctx := testContext(t)
	var wg sync.WaitGroup
	for i := range 24 {
		wg.Go(func() {
			rcpt := fmt.Sprintf("c%d@example.org", i)
			results := relay.Deliver(ctx, Envelope{From: "a@example.com", Recipients: []string{rcpt}}, data)
			if len(results) != 1 || results[0].Class != ClassAccepted {
				t.Errorf("delivery %d: %+v", i, results)
			}
		})
	}
	wg.Wait()
	if n := len(srv.Messages()); n != 24 {
		t.Errorf("server received %d messages, want 24", n)
	}
	if n := srv.Connections(); n < 1 || n > 3 {
		t.Errorf("pool of 3 opened %d connections", n)
	}
}

func TestRelayClosesIdleConnections(t *testing.T) {
	t.Parallel()
	srv := testutil.NewSMTPServer(t)
	relay := newPlainRelay(t, srv, RelayOptions{IdleTimeout: 50 * time.Millisecond})
	env := Envelope{From: "a@example.com", Recipients: []string{"b@example.org"}}
	data := builtMessage(t)
	assertClasses(t, relay.Deliver(testContext(t), env, data), map[string]Class{"b@example.org": ClassAccepted})
	deadline := time.Now().Add(2 * time.Second)
	for relay.pool.idleCount() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := relay.pool.idleCount(); n != 0 {
		t.Fatalf("%d idle connections left after the idle timeout", n)
	}
	assertClasses(t, relay.Deliver(testContext(t), env, data), map[string]Class{"b@example.org": ClassAccepted})
	if n := srv.Connections(); n != 2 {
		t.Errorf("%d connections, want a new one after the idle close", n)
	}
}

func TestRelayRetiresConnectionsAfterMaxMessages(t *testing.T) {
	t.Parallel()
	srv := testutil.NewSMTPServer(t)
	relay := newPlainRelay(t, srv, RelayOptions{MaxMessagesPerSession: 2})
	data := builtMessage(t)
	for range 5 {
		relay.Deliver(testContext(t), Envelope{From: "a@example.com", Recipients: []string{"b@example.org"}}, data)
	}
	if n := srv.Connections(); n != 3 {
		t.Errorf("5 messages at 2 per connection used %d connections, want 3", n)
	}
}

func TestRelayRequestsDSN(t *testing.T) {
	t.Parallel()
	srv := testutil.NewSMTPServer(t)
	relay := newPlainRelay(t, srv, RelayOptions{RequestDSN: true})
	env := Envelope{From: "bounces+x@example.com", Recipients: []string{"b@example.org", "c@example.org"}, EnvelopeID: "email-0190a1b2+id=1"}
	results := relay.Deliver(testContext(t), env, builtMessage(t))
	for _, r := range results {
		if r.Class != ClassAccepted || !r.DSN {
			t.Errorf("result %+v, want accepted with DSN", r)
		}
	}
	msgs := srv.Messages()
	if len(msgs) != 1 {
		t.Fatalf("%d messages", len(msgs))
	}
	opts := msgs[0].MailOptions
	if opts.Return != "HDRS" || opts.EnvelopeID != env.EnvelopeID {
		t.Errorf("MAIL RET=%q ENVID=%q", opts.Return, opts.EnvelopeID)
	}
	for i, rc := range msgs[0].Rcpts {
		if strings.Join(rc.Notify, ",") != "SUCCESS,FAILURE,DELAY" || rc.OriginalRecipient != env.Recipients[i] {
			t.Errorf("RCPT %s NOTIFY=%v ORCPT=%q", rc.Address, rc.Notify, rc.OriginalRecipient)
		}
	}
}

func TestRelayWithoutDSNRequestSendsNone(t *testing.T) {
	t.Parallel()
	srv := testutil.NewSMTPServer(t)
	relay := newPlainRelay(t, srv, RelayOptions{})
	relay.Deliver(testContext(t), Envelope{From: "a@example.com", Recipients: []string{"b@example.org"}, EnvelopeID: "x"}, builtMessage(t))
	msgs := srv.Messages()
	if len(msgs) != 1 || msgs[0].MailOptions.Return != "" || msgs[0].MailOptions.EnvelopeID != "" || len(msgs[0].Rcpts[0].Notify) != 0 {
		t.Errorf("DSN parameters sent without RequestDSN: %+v", msgs)
	}
}

func TestRelayAfterCloseIsTemporary(t *testing.T) {
	t.Parallel()
	srv := testutil.NewSMTPServer(t)
	relay := newPlainRelay(t, srv, RelayOptions{})
	_ = relay.Close()
	results := relay.Deliver(testContext(t), Envelope{From: "a@example.com", Recipients: []string{"b@example.org"}}, builtMessage(t))
	assertClasses(t, results, map[string]Class{"b@example.org": ClassTemporary})
}

func TestNewRelayRejectsBadURLs(t *testing.T) {
	t.Parallel()
	for _, url := range []string{"", "http://host:25", "smtp://", "smtp://host:25/path", "smtp://host?x=1", "::nonsense"} {
		if _, err := NewRelay(url, RelayOptions{}); err == nil {
			t.Errorf("NewRelay(%q) accepted", url)
		}
	}
	for url, wantAddr := range map[string]string{
		"smtp://u:p@mail.example.com":     "mail.example.com:587",
		"smtps://mail.example.com":        "mail.example.com:465",
		"smtp+plain://127.0.0.1":          "127.0.0.1:25",
		"smtp+plain://[::1]:2525":         "[::1]:2525",
		"smtp://mail.example.com:2587/":   "mail.example.com:2587",
		"smtps://user%40x:p%3A@host:1465": "host:1465",
	} {
		r, err := NewRelay(url, RelayOptions{})
		if err != nil {
			t.Errorf("NewRelay(%q): %v", url, err)
			continue
		}
		if got := r.target.addr(); got != wantAddr {
			t.Errorf("NewRelay(%q) dials %s, want %s", url, got, wantAddr)
		}
		_ = r.Close()
	}
}

// startTLSProxy terminates implicit TLS on 127.0.0.1 and forwards to
// backend, standing in for an smtps:// relay. It returns its address and a
// pool trusting its certificate.
func startTLSProxy(t *testing.T, backend string) (string, *x509.CertPool) {
	t.Helper()
	cert, roots := selfSignedCert(t)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { proxy(client, backend) })
		}
	})
	return ln.Addr().String(), roots
}

// proxy copies both ways until either side closes.
func proxy(client net.Conn, backend string) {
	defer client.Close()
	server, err := net.Dial("tcp", backend)
	if err != nil {
		return
	}
	defer server.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(server, client); done <- struct{}{} }()
	go func() { _, _ = io.Copy(client, server); done <- struct{}{} }()
	<-done
}

// selfSignedCert makes a certificate for 127.0.0.1 and a pool trusting it.
func selfSignedCert(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	template := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "127.0.0.1"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}
