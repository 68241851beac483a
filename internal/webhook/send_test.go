package webhook_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testutil"
	"github.com/carteiro/carteiro/internal/webhook"
)

const testSecret = "whsec_0123456789abcdefABCDEF0123456789"

// newClient returns a client trusting rcv's CA on loopback, as tests and
// private deployments configure it (D51), with opts applied on top.
func newClient(t *testing.T, rcv *testutil.TLSReceiver, opts webhook.ClientOptions) *webhook.Client {
	t.Helper()
	opts.AllowPrivate = true
	if rcv != nil {
		opts.CAFile = rcv.CAFile()
	}
	c, err := webhook.NewClient(opts)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// verifyingHandler answers 200 when both signatures verify with secret
// and 401 otherwise, as a careful receiver does.
func verifyingHandler(secret string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := verifyRequest(secret, r.Header, body, time.Now()); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusOK)
	}
}

func TestSendSignedRequestVerifiesAtReceiver(t *testing.T) {
	t.Parallel()
	rcv := testutil.NewTLSReceiver(t, verifyingHandler(testSecret))
	client := newClient(t, rcv, webhook.ClientOptions{UserAgent: "carteiro-test/1"})
	body := []byte(`{"id":"0190f3a2-0000-7000-8000-000000000001","type":"email.sent","createdAt":"2026-01-02T03:04:05Z","data":{"emailId":"e1"}}`)
	stamp := time.Now().Truncate(time.Second)

	out := client.Send(context.Background(), webhook.Request{
		URL: rcv.URL() + "/hooks/in?src=carteiro", Secret: testSecret,
		EventID: "0190f3a2-0000-7000-8000-000000000001", Body: body, Timestamp: stamp,
	})
	if !out.Success || out.Status != http.StatusOK || out.Err != "" {
		t.Fatalf("Send = %+v, want a verified 200", out)
	}

	reqs := rcv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("receiver got %d requests, want 1", len(reqs))
	}
	got := reqs[0]
	checks := map[string][2]string{
		"method":              {got.Method, http.MethodPost},
		"path":                {got.Path, "/hooks/in"},
		"query":               {got.RawQuery, "src=carteiro"},
		"Content-Type":        {got.Header.Get("Content-Type"), "application/json"},
		"User-Agent":          {got.Header.Get("User-Agent"), "carteiro-test/1"},
		"X-Service-Event-Id":  {got.Header.Get("X-Service-Event-Id"), "0190f3a2-0000-7000-8000-000000000001"},
		"X-Service-Timestamp": {got.Header.Get("X-Service-Timestamp"), strconv.FormatInt(stamp.Unix(), 10)},
		"X-Service-Signature-V2 prefix": {
			strings.SplitN(got.Header.Get("X-Service-Signature-V2"), ",", 2)[0], "t=" + strconv.FormatInt(stamp.Unix(), 10)},
	}
	for name, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s = %q, want %q", name, c[0], c[1])
		}
	}
	if !bytes.Equal(got.Body, body) {
		t.Errorf("body = %s, want the payload byte for byte", got.Body)
	}
	if got.Header.Get("Accept-Encoding") != "" {
		t.Errorf("Accept-Encoding = %q; answers must come uncompressed", got.Header.Get("Accept-Encoding"))
	}

	// The receiver's verifier refuses tampering, another secret and a
	// replay older than the window.
	now := time.Now()
	flipped := bytes.Clone(got.Body)
	flipped[len(flipped)/2] ^= 0x01
	if err := verifyV1(testSecret, flipped, got.Header.Get("X-Service-Signature")); err == nil {
		t.Error("V1 verified a body with a flipped byte")
	}
	if err := verifyV2(testSecret, flipped, got.Header.Get("X-Service-Signature-V2"), now); err == nil {
		t.Error("V2 verified a body with a flipped byte")
	}
	if err := verifyRequest("whsec_someoneelsessecret000000000000", got.Header, got.Body, now); err == nil {
		t.Error("the signatures verified with a wrong secret")
	}
	if err := verifyRequest(testSecret, got.Header, got.Body, now); err != nil {
		t.Errorf("the recorded request no longer verifies: %v", err)
	}
}

func TestSendReplayedTimestampIsRefusedByReceiver(t *testing.T) {
	t.Parallel()
	rcv := testutil.NewTLSReceiver(t, verifyingHandler(testSecret))
	client := newClient(t, rcv, webhook.ClientOptions{})
	body := []byte(`{"id":"evt","type":"email.delivered"}`)

	old := client.Send(context.Background(), webhook.Request{
		URL: rcv.URL(), Secret: testSecret, EventID: "evt", Body: body,
		Timestamp: time.Now().Add(-301 * time.Second),
	})
	if old.Success || old.Status != http.StatusUnauthorized || !strings.Contains(old.Body, "replay window") {
		t.Errorf("a 301 s old signature: %+v, want 401 from the replay check", old)
	}
	recent := client.Send(context.Background(), webhook.Request{
		URL: rcv.URL(), Secret: testSecret, EventID: "evt", Body: body,
		Timestamp: time.Now().Add(-290 * time.Second),
	})
	if !recent.Success {
		t.Errorf("a 290 s old signature: %+v, want accepted", recent)
	}
}

func TestSendWithoutSecretIsUnsignedAndStampedByClock(t *testing.T) {
	t.Parallel()
	rcv := testutil.NewTLSReceiver(t, nil)
	clock := testutil.NewClock(time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC))
	client := newClient(t, rcv, webhook.ClientOptions{Clock: clock})

	out := client.Send(context.Background(), webhook.Request{URL: rcv.URL(), EventID: "evt-2", Body: []byte(`{}`)})
	if !out.Success {
		t.Fatalf("Send = %+v", out)
	}
	h := rcv.Requests()[0].Header
	if h.Get("X-Service-Signature") != "" || h.Get("X-Service-Signature-V2") != "" {
		t.Errorf("signature headers without a secret: %v", h)
	}
	if got, want := h.Get("X-Service-Timestamp"), strconv.FormatInt(clock.Now().Unix(), 10); got != want {
		t.Errorf("X-Service-Timestamp = %s, want the clock's %s", got, want)
	}
	if h.Get("User-Agent") != webhook.DefaultUserAgent || h.Get("X-Service-Event-Id") != "evt-2" {
		t.Errorf("headers = %v", h)
	}
}

func TestSendStatusOutcomes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		handler http.HandlerFunc
		check   func(t *testing.T, out webhook.Outcome)
	}{
		{"202 accepted", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusAccepted)
			_, _ = io.WriteString(w, `{"queued":true}`)
		}, func(t *testing.T, out webhook.Outcome) {
			if !out.Success || out.Status != 202 || out.Body != `{"queued":true}` || out.Err != "" {
				t.Errorf("%+v, want success with the body", out)
			}
		}},
		{"204 no content", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusNoContent)
		}, func(t *testing.T, out webhook.Outcome) {
			if !out.Success || out.Status != 204 {
				t.Errorf("%+v, want success", out)
			}
		}},
		{"500 with a long body", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = io.WriteString(w, strings.Repeat("e", 10_000))
		}, func(t *testing.T, out webhook.Outcome) {
			if out.Success || out.Status != 500 || out.Err == "" {
				t.Errorf("%+v, want a failure", out)
			}
			if len(out.Body) != webhook.MaxResponseBody || strings.Trim(out.Body, "e") != "" {
				t.Errorf("body of %d bytes, want the first 4096", len(out.Body))
			}
		}},
		{"429 with Retry-After seconds", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
		}, func(t *testing.T, out webhook.Outcome) {
			if out.Success || out.Status != 429 || out.RetryAfter != 7*time.Second {
				t.Errorf("%+v, want failure with RetryAfter 7s", out)
			}
		}},
		{"503 with Retry-After date", func(w http.ResponseWriter, _ *http.Request) {
			// Measured from the receiver's Date, whatever our clock says.
			date := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
			w.Header().Set("Date", date.Format(http.TimeFormat))
			w.Header().Set("Retry-After", date.Add(90*time.Second).Format(http.TimeFormat))
			w.WriteHeader(http.StatusServiceUnavailable)
		}, func(t *testing.T, out webhook.Outcome) {
			if out.Success || out.Status != 503 || out.RetryAfter != 90*time.Second {
				t.Errorf("%+v, want failure with RetryAfter 90s", out)
			}
		}},
		{"500 ignores Retry-After", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "60")
			w.WriteHeader(http.StatusInternalServerError)
		}, func(t *testing.T, out webhook.Outcome) {
			if out.RetryAfter != 0 {
				t.Errorf("%+v, want no RetryAfter outside 429/503 (D49)", out)
			}
		}},
		{"410 gone", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusGone)
		}, func(t *testing.T, out webhook.Outcome) {
			if out.Success || out.Status != 410 || !out.Gone {
				t.Errorf("%+v, want Gone", out)
			}
		}},
		{"400 is not gone", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
		}, func(t *testing.T, out webhook.Outcome) {
			if out.Success || out.Gone || out.Status != 400 || out.Err != "HTTP 400" {
				t.Errorf("%+v, want a plain failure", out)
			}
		}},
		{"invalid UTF-8 and NUL in the body", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte("bad \xff\xfe byte\x00s"))
		}, func(t *testing.T, out webhook.Outcome) {
			if out.Body != "bad \uFFFD bytes" {
				t.Errorf("body = %q, want storable text", out.Body)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rcv := testutil.NewTLSReceiver(t, c.handler)
			client := newClient(t, rcv, webhook.ClientOptions{})
			c.check(t, client.Send(context.Background(), webhook.Request{URL: rcv.URL(), EventID: "e", Body: []byte(`{}`)}))
		})
	}
}

func TestSendDoesNotFollowRedirects(t *testing.T) {
	t.Parallel()
	elsewhere := testutil.NewTLSReceiver(t, nil)
	rcv := testutil.NewTLSReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL()+"/stolen", http.StatusFound)
	})
	client := newClient(t, rcv, webhook.ClientOptions{})

	out := client.Send(context.Background(), webhook.Request{URL: rcv.URL(), Secret: testSecret, EventID: "e", Body: []byte(`{}`)})
	if out.Success || out.Status != http.StatusFound || !strings.Contains(out.Err, "redirect") {
		t.Errorf("Send = %+v, want a 302 failure (D49)", out)
	}
	if n := len(elsewhere.Requests()); n != 0 {
		t.Errorf("the redirect target got %d requests; redirects must not be followed", n)
	}
	if n := len(rcv.Requests()); n != 1 {
		t.Errorf("the receiver got %d requests, want 1", n)
	}
}

func TestSendTimesOutOnHangingReceiver(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	hang := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}
	headersThenHang := func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "partial")
		w.(http.Flusher).Flush()
		hang(w, r)
	}
	for name, handler := range map[string]http.HandlerFunc{"no headers": hang, "body never ends": headersThenHang} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rcv := testutil.NewTLSReceiver(t, handler)
			client := newClient(t, rcv, webhook.ClientOptions{Timeout: 300 * time.Millisecond})

			start := time.Now()
			out := client.Send(context.Background(), webhook.Request{URL: rcv.URL(), EventID: "e", Body: []byte(`{}`)})
			elapsed := time.Since(start)
			if out.Success || !strings.Contains(out.Err, "timeout") {
				t.Errorf("Send = %+v, want a timeout failure", out)
			}
			// The receiver never answers; the slack absorbs a loaded CI machine.
			if elapsed > 10*time.Second {
				t.Errorf("Send took %s with a 300ms timeout", elapsed)
			}
		})
	}
}

func TestSendResetConnectionIsFailure(t *testing.T) {
	t.Parallel()
	rcv := testutil.NewTLSReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		// SO_LINGER 0 makes close send a RST instead of a FIN.
		if tlsConn, ok := conn.(interface{ NetConn() net.Conn }); ok {
			if tcp, ok := tlsConn.NetConn().(*net.TCPConn); ok {
				_ = tcp.SetLinger(0)
				_ = tcp.Close()
				return
			}
		}
		_ = conn.Close()
	})
	client := newClient(t, rcv, webhook.ClientOptions{})

	out := client.Send(context.Background(), webhook.Request{URL: rcv.URL(), EventID: "e", Body: []byte(`{}`)})
	if out.Success || out.Status != 0 || out.Err == "" {
		t.Errorf("Send = %+v, want a failure with no status", out)
	}
	if n := len(rcv.Requests()); n != 1 {
		t.Errorf("receiver got %d requests; a POST must not be replayed by the transport", n)
	}
}

func TestSendRefusesUntrustedCertificate(t *testing.T) {
	t.Parallel()
	rcv := testutil.NewTLSReceiver(t, nil)
	// Allowed to reach loopback, but trusting only the system roots (D51).
	client, err := webhook.NewClient(webhook.ClientOptions{AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)

	out := client.Send(context.Background(), webhook.Request{URL: rcv.URL(), EventID: "e", Body: []byte(`{}`)})
	if out.Success || out.Status != 0 || !strings.Contains(out.Err, "certificate") {
		t.Errorf("Send = %+v, want a certificate failure", out)
	}
	if n := len(rcv.Requests()); n != 0 {
		t.Errorf("receiver got %d requests over an untrusted connection", n)
	}

	// Another receiver's CA does not help either.
	other := testutil.NewTLSReceiver(t, nil)
	wrongCA := newClient(t, other, webhook.ClientOptions{})
	if out := wrongCA.Send(context.Background(), webhook.Request{URL: rcv.URL(), EventID: "e", Body: []byte(`{}`)}); out.Success {
		t.Errorf("Send trusting another CA = %+v, want failure", out)
	}
}

func TestNewClientRejectsBadCAFile(t *testing.T) {
	t.Parallel()
	if _, err := webhook.NewClient(webhook.ClientOptions{CAFile: t.TempDir() + "/missing.pem"}); err == nil {
		t.Error("a missing CA file was accepted")
	}
	notPEM := t.TempDir() + "/not.pem"
	if err := writeFile(notPEM, "not a certificate"); err != nil {
		t.Fatal(err)
	}
	if _, err := webhook.NewClient(webhook.ClientOptions{CAFile: notPEM}); err == nil {
		t.Error("a CA file without certificates was accepted")
	}
}

func TestSendRefusesPlainHTTPAndBadURLs(t *testing.T) {
	t.Parallel()
	listener := newCountingListener(t)
	client := newClient(t, nil, webhook.ClientOptions{})
	for _, u := range []string{"http://" + listener.addr() + "/", "ftp://" + listener.addr(), "https://1.2.3.999/", ""} {
		out := client.Send(context.Background(), webhook.Request{URL: u, EventID: "e", Body: []byte(`{}`)})
		if out.Success || !strings.Contains(out.Err, "invalid webhook URL") {
			t.Errorf("Send(%q) = %+v, want refused", u, out)
		}
	}
	if n := listener.connections(); n != 0 {
		t.Errorf("%d connections were opened for refused URLs", n)
	}
}

func TestSendReusesConnections(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	peers := map[string]int{}
	rcv := testutil.NewTLSReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		peers[r.RemoteAddr]++
		mu.Unlock()
		// A body larger than what is kept must still be drained so the
		// connection is reused.
		_, _ = io.WriteString(w, strings.Repeat("k", 20_000))
	})
	client := newClient(t, rcv, webhook.ClientOptions{})
	for i := range 20 {
		if out := client.Send(context.Background(), webhook.Request{URL: rcv.URL(), EventID: strconv.Itoa(i), Body: []byte(`{}`)}); !out.Success {
			t.Fatalf("send %d: %+v", i, out)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(peers) != 1 {
		t.Errorf("20 sequential sends used %d connections, want 1 reused", len(peers))
	}
}

func TestSendConcurrently(t *testing.T) {
	t.Parallel()
	rcv := testutil.NewTLSReceiver(t, verifyingHandler(testSecret))
	// A generous timeout: 32 TLS handshakes at once under -race on a busy
	// machine can take seconds, and this test is about safety, not speed.
	client := newClient(t, rcv, webhook.ClientOptions{Timeout: 20 * time.Second})
	const n = 32
	var wg sync.WaitGroup
	failures := make(chan webhook.Outcome, n)
	for i := range n {
		wg.Go(func() {
			body := []byte(`{"id":"` + strconv.Itoa(i) + `"}`)
			if out := client.Send(context.Background(), webhook.Request{URL: rcv.URL(), Secret: testSecret, EventID: strconv.Itoa(i), Body: body}); !out.Success {
				failures <- out
			}
		})
	}
	wg.Wait()
	close(failures)
	for out := range failures {
		t.Errorf("concurrent send failed: %+v", out)
	}
	if got := len(rcv.Requests()); got != n {
		t.Errorf("receiver got %d requests, want %d", got, n)
	}
}
