package testutil

import (
	"bytes"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// ReceivedRequest is one request the HTTPS receiver got.
type ReceivedRequest struct {
	// Method is the HTTP method, such as "POST".
	Method string
	// Path is the URL path, without the query.
	Path string
	// RawQuery is the URL query without '?', empty when absent.
	RawQuery string
	// Header is a copy of the request headers.
	Header http.Header
	// Body is the complete request body.
	Body []byte
	// ReceivedAt is the real time the request arrived.
	ReceivedAt time.Time
}

// TLSReceiver is an HTTPS server for tests (webhook deliveries) whose
// certificate is signed by its own CA, so the code under test must be told to
// trust it (CARTEIRO_WEBHOOK_CA_FILE=CAFile()) exactly as in production with
// a private CA. It records every request before handing it to the handler.
// All methods are safe for concurrent use.
type TLSReceiver struct {
	server *httptest.Server
	pki    *PKI
	caFile string

	mu         sync.Mutex
	handler    http.HandlerFunc
	requests   []ReceivedRequest
	newRequest chan struct{} // closed and replaced whenever a request arrives
}

// NewTLSReceiver starts an HTTPS server on 127.0.0.1 answering with handler
// (200 with an empty body when handler is nil) and stops it when the test
// ends.
func NewTLSReceiver(t testing.TB, handler http.HandlerFunc) *TLSReceiver {
	t.Helper()
	pki, err := NewPKI("https receiver")
	if err != nil {
		t.Fatalf("testutil: TLS receiver: %v", err)
	}
	caFile := filepath.Join(t.TempDir(), "receiver-ca.pem")
	if err := os.WriteFile(caFile, pki.CAPEM(), 0o600); err != nil {
		t.Fatalf("testutil: TLS receiver: write CA file: %v", err)
	}

	r := &TLSReceiver{
		pki:        pki,
		caFile:     caFile,
		handler:    handler,
		newRequest: make(chan struct{}),
	}
	r.server = httptest.NewUnstartedServer(http.HandlerFunc(r.serveHTTP))
	r.server.TLS = pki.ServerTLSConfig()
	// Handshake failures are what the untrusting-client tests provoke; the
	// server's log of them is noise.
	r.server.Config.ErrorLog = log.New(io.Discard, "", 0)
	r.server.StartTLS()
	t.Cleanup(r.server.Close)
	return r
}

// URL returns the base URL, "https://127.0.0.1:PORT".
func (r *TLSReceiver) URL() string { return r.server.URL }

// CAFile returns the path of the PEM file holding the receiver's CA
// certificate (in the test's temporary directory).
func (r *TLSReceiver) CAFile() string { return r.caFile }

// CertPool returns a pool trusting the receiver's CA.
func (r *TLSReceiver) CertPool() *x509.CertPool { return r.pki.CertPool() }

// SetHandler replaces the handler for the next requests; nil answers 200.
// Tests of retries use it to fail first and succeed later.
func (r *TLSReceiver) SetHandler(handler http.HandlerFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.handler = handler
}

// Requests returns a copy of the requests received, in arrival order.
func (r *TLSReceiver) Requests() []ReceivedRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]ReceivedRequest, len(r.requests))
	for i, req := range r.requests {
		// Deep copies, so a test editing what it got back cannot change
		// what was recorded.
		req.Header = req.Header.Clone()
		req.Body = slices.Clone(req.Body)
		out[i] = req
	}
	return out
}

// WaitForRequests waits until at least n requests arrived and returns them
// all, or returns an error naming how many arrived when timeout passes.
func (r *TLSReceiver) WaitForRequests(n int, timeout time.Duration) ([]ReceivedRequest, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		got, changed := len(r.requests), r.newRequest
		r.mu.Unlock()
		if got >= n {
			return r.Requests(), nil
		}
		select {
		case <-changed:
		case <-deadline.C:
			return r.Requests(), fmt.Errorf("testutil: TLS receiver got %d request(s), want %d within %s", got, n, timeout)
		}
	}
}

// Reset forgets the recorded requests.
func (r *TLSReceiver) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = nil
}

// serveHTTP records the request, then lets the handler answer it with the
// body still readable.
func (r *TLSReceiver) serveHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	req.Body = io.NopCloser(bytes.NewReader(body))

	r.mu.Lock()
	r.requests = append(r.requests, ReceivedRequest{
		Method:     req.Method,
		Path:       req.URL.Path,
		RawQuery:   req.URL.RawQuery,
		Header:     req.Header.Clone(),
		Body:       body,
		ReceivedAt: time.Now(),
	})
	close(r.newRequest)
	r.newRequest = make(chan struct{})
	handler := r.handler
	r.mu.Unlock()

	if handler == nil {
		w.WriteHeader(http.StatusOK)
		return
	}
	handler(w, req)
}
