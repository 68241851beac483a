package webhook_test

import (
	"context"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/dnscheck"
	"github.com/carteiro/carteiro/internal/testutil"
	"github.com/carteiro/carteiro/internal/webhook"
)

// countingListener is a plain TCP listener on 127.0.0.1 that counts the
// connections it accepts and closes them: the proof that nothing connected.
type countingListener struct {
	ln    net.Listener
	count atomic.Int64
}

func newCountingListener(t *testing.T) *countingListener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &countingListener{ln: ln}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			l.count.Add(1)
			_ = conn.Close()
		}
	}()
	t.Cleanup(func() { _ = ln.Close() })
	return l
}

func (l *countingListener) addr() string { return l.ln.Addr().String() }

func (l *countingListener) port() string {
	_, port, _ := net.SplitHostPort(l.addr())
	return port
}

// connections waits briefly for accepts in flight, then counts.
func (l *countingListener) connections() int64 {
	time.Sleep(50 * time.Millisecond)
	return l.count.Load()
}

func writeFile(path, content string) error { return os.WriteFile(path, []byte(content), 0o600) }

func TestSendRefusesLoopbackUnlessAllowed(t *testing.T) {
	t.Parallel()
	rcv := testutil.NewTLSReceiver(t, nil)
	resolver := newMapResolver(map[string][]string{"localhost": {"127.0.0.1", "::1"}})
	strict, err := webhook.NewClient(webhook.ClientOptions{CAFile: rcv.CAFile(), Resolver: resolver})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(strict.Close)

	out := strict.Send(context.Background(), webhook.Request{URL: rcv.URL(), Secret: testSecret, EventID: "e", Body: []byte(`{}`)})
	if out.Success || out.Status != 0 || !strings.Contains(out.Err, "not public") {
		t.Errorf("Send to %s without AllowPrivate = %+v, want refused (D51)", rcv.URL(), out)
	}
	if n := len(rcv.Requests()); n != 0 {
		t.Errorf("receiver got %d requests; loopback must be refused", n)
	}

	// Every spelling of loopback reaches the same guard.
	port := strings.TrimPrefix(rcv.URL(), "https://127.0.0.1:")
	for _, host := range []string{"127.1", "2130706433", "0x7f000001", "0177.0.0.1", "[::ffff:127.0.0.1]", "localhost"} {
		out := strict.Send(context.Background(), webhook.Request{URL: "https://" + host + ":" + port + "/", EventID: "e", Body: []byte(`{}`)})
		if out.Success || !strings.Contains(out.Err, "not public") {
			t.Errorf("Send to %s = %+v, want refused", host, out)
		}
	}
	if n := len(rcv.Requests()); n != 0 {
		t.Errorf("receiver got %d requests through loopback spellings", n)
	}

	allowed := newClient(t, rcv, webhook.ClientOptions{})
	if out := allowed.Send(context.Background(), webhook.Request{URL: rcv.URL(), EventID: "e", Body: []byte(`{}`)}); !out.Success {
		t.Errorf("Send with AllowPrivate and CAFile = %+v, want success", out)
	}
	// 127.1 is read as 127.0.0.1 and the certificate for that IP matches.
	if out := allowed.Send(context.Background(), webhook.Request{URL: "https://127.1:" + port + "/", EventID: "e", Body: []byte(`{}`)}); !out.Success {
		t.Errorf("Send to 127.1 with AllowPrivate = %+v, want success", out)
	}
}

// TestSendDNSRebinding: a name public at registration that resolves to
// loopback when sending gets no connection at all (D51).
func TestSendDNSRebinding(t *testing.T) {
	t.Parallel()
	listener := newCountingListener(t)
	dnsServer := testutil.NewDNSServer(t)
	resolver, err := dnscheck.NewResolver(dnsServer.Addr(), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	url := "https://hooks.rebind.test:" + listener.port() + "/in"

	dnsServer.SetA("hooks.rebind.test", "93.184.215.14")
	if reason, ok := webhook.CheckURL(context.Background(), url, resolver, false); !ok {
		t.Fatalf("CheckURL at registration = %q, want accepted while the name is public", reason)
	}

	dnsServer.SetA("hooks.rebind.test", "127.0.0.1")
	strict, err := webhook.NewClient(webhook.ClientOptions{Resolver: resolver, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(strict.Close)
	out := strict.Send(context.Background(), webhook.Request{URL: url, Secret: testSecret, EventID: "e", Body: []byte(`{}`)})
	if out.Success || out.Status != 0 || !strings.Contains(out.Err, "not public") {
		t.Errorf("Send after rebinding = %+v, want refused at connect time", out)
	}
	if n := listener.connections(); n != 0 {
		t.Fatalf("the rebound name got %d TCP connections, want 0", n)
	}

	// Control: the same name and listener do get a connection when private
	// addresses are allowed, so the zero above is meaningful.
	loose, err := webhook.NewClient(webhook.ClientOptions{Resolver: resolver, AllowPrivate: true, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(loose.Close)
	_ = loose.Send(context.Background(), webhook.Request{URL: url, EventID: "e", Body: []byte(`{}`)})
	if n := listener.connections(); n == 0 {
		t.Error("AllowPrivate client did not connect either; the test proves nothing")
	}
}

// TestSendMixedAnswersNeverReachPrivate: every answer of the resolver is
// checked as it is dialled, not only the first one.
func TestSendMixedAnswersNeverReachPrivate(t *testing.T) {
	t.Parallel()
	listener := newCountingListener(t)
	resolver := newMapResolver(map[string][]string{
		// 192.0.2.1 is a documentation address: refused, never dialled.
		"mixed.rebind.test": {"192.0.2.1", "127.0.0.1"},
	})
	client, err := webhook.NewClient(webhook.ClientOptions{Resolver: resolver, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	out := client.Send(context.Background(), webhook.Request{URL: "https://mixed.rebind.test:" + listener.port() + "/", EventID: "e", Body: []byte(`{}`)})
	if out.Success || strings.Count(out.Err, "not public") != 2 {
		t.Errorf("Send = %+v, want both addresses refused", out)
	}
	if n := listener.connections(); n != 0 {
		t.Errorf("%d connections reached the listener", n)
	}
}

func TestSendUnresolvableHost(t *testing.T) {
	t.Parallel()
	client, err := webhook.NewClient(webhook.ClientOptions{Resolver: newMapResolver(map[string][]string{})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	out := client.Send(context.Background(), webhook.Request{URL: "https://gone.example.com/", EventID: "e", Body: []byte(`{}`)})
	if out.Success || !strings.Contains(out.Err, "resolve gone.example.com") {
		t.Errorf("Send = %+v, want a resolution failure", out)
	}
}
