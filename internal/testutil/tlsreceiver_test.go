package testutil

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

func trustingClient(pool *x509.CertPool) *http.Client {
	return &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
	}
}

func TestTLSReceiverRecordsRequestsAndDefaultsTo200(t *testing.T) {
	t.Parallel()
	r := NewTLSReceiver(t, nil)
	if !strings.HasPrefix(r.URL(), "https://127.0.0.1:") {
		t.Fatalf("URL() = %q, want https://127.0.0.1:PORT", r.URL())
	}

	req, err := http.NewRequest(http.MethodPost, r.URL()+"/hooks/carteiro?x=1", strings.NewReader(`{"type":"email.sent"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Carteiro-Signature", "t=1,v1=abc")
	resp, err := trustingClient(r.CertPool()).Do(req)
	if err != nil {
		t.Fatalf("POST with the receiver's pool: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, want 200 from the nil handler", resp.StatusCode)
	}

	got, err := r.WaitForRequests(1, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	g := got[0]
	if g.Method != http.MethodPost || g.Path != "/hooks/carteiro" || g.RawQuery != "x=1" {
		t.Errorf("recorded %s %s ? %s", g.Method, g.Path, g.RawQuery)
	}
	if string(g.Body) != `{"type":"email.sent"}` || g.Header.Get("Carteiro-Signature") != "t=1,v1=abc" {
		t.Errorf("recorded body %q header %q", g.Body, g.Header.Get("Carteiro-Signature"))
	}
	if g.ReceivedAt.IsZero() {
		t.Error("ReceivedAt not set")
	}
}

func TestTLSReceiverHandlerSeesBody(t *testing.T) {
	t.Parallel()
	r := NewTLSReceiver(t, func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		w.WriteHeader(http.StatusTeapot)
		_, _ = w.Write(append([]byte("echo:"), body...))
	})
	resp, err := trustingClient(r.CertPool()).Post(r.URL(), "text/plain", strings.NewReader("ping"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusTeapot || string(body) != "echo:ping" {
		t.Fatalf("got %d %q, want 418 echo:ping", resp.StatusCode, body)
	}

	r.SetHandler(nil)
	resp, err = trustingClient(r.CertPool()).Get(r.URL())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("after SetHandler(nil): %d, want 200", resp.StatusCode)
	}
	if n := len(r.Requests()); n != 2 {
		t.Fatalf("%d requests recorded, want 2", n)
	}
	r.Reset()
	if n := len(r.Requests()); n != 0 {
		t.Fatalf("%d requests after Reset, want 0", n)
	}
}

func TestTLSReceiverIsNotTrustedWithoutItsCA(t *testing.T) {
	t.Parallel()
	r := NewTLSReceiver(t, nil)
	other := NewTLSReceiver(t, nil)

	for name, client := range map[string]*http.Client{
		"system roots":        {Timeout: 5 * time.Second, Transport: &http.Transport{}},
		"another receiver CA": trustingClient(other.CertPool()),
	} {
		_, err := client.Get(r.URL())
		var unknownAuthority x509.UnknownAuthorityError
		if !errors.As(err, &unknownAuthority) {
			t.Errorf("%s: err = %v, want an unknown-authority error", name, err)
		}
	}
	if n := len(r.Requests()); n != 0 {
		t.Fatalf("%d requests recorded through failed handshakes, want 0", n)
	}
}

func TestTLSReceiverCAFileAndNames(t *testing.T) {
	t.Parallel()
	r := NewTLSReceiver(t, nil)
	pemBytes, err := os.ReadFile(r.CAFile())
	if err != nil {
		t.Fatalf("read CAFile: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemBytes) {
		t.Fatal("CAFile holds no PEM certificate")
	}

	// The pool built from the file is enough, and the leaf covers every
	// loopback spelling.
	port := strings.TrimPrefix(r.URL(), "https://127.0.0.1")
	for _, serverName := range []string{"127.0.0.1", "::1", "localhost"} {
		client := &http.Client{
			Timeout:   5 * time.Second,
			Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: serverName}},
		}
		resp, err := client.Get("https://127.0.0.1" + port)
		if err != nil {
			t.Fatalf("ServerName %s: %v", serverName, err)
		}
		resp.Body.Close()
	}
}

func TestTLSReceiverWaitForRequestsTimesOut(t *testing.T) {
	t.Parallel()
	r := NewTLSReceiver(t, nil)
	if _, err := r.WaitForRequests(1, 30*time.Millisecond); err == nil {
		t.Fatal("WaitForRequests succeeded with no request")
	}
}
