package testserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
)

// UserPassword is the password NewUser gives its users.
const UserPassword = "correct horse battery staple"

// Browser is a dashboard client (D73): a cookie jar holding the session
// and the CSRF token the session's answers gave, sent on unsafe methods.
type Browser struct {
	ts     *TestServer
	client *http.Client
	CSRF   string
	// Mode, when set, is sent as X-Carteiro-Mode.
	Mode string
}

// NewBrowser returns a client with no session yet.
func (ts *TestServer) NewBrowser(t testing.TB) *Browser {
	t.Helper()
	return ts.NewBrowserFrom(t, "")
}

// NewBrowserFrom is NewBrowser connecting from the loopback address
// localIP (127.0.0.2, say), so a test can play two clients' IPs.
func (ts *TestServer) NewBrowserFrom(t testing.TB, localIP string) *Browser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatalf("cookie jar: %v", err)
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	if localIP != "" {
		dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(localIP)}}
		transport.DialContext = dialer.DialContext
	}
	t.Cleanup(transport.CloseIdleConnections)
	return &Browser{ts: ts, client: &http.Client{Jar: jar, Transport: transport, CheckRedirect: noRedirects.CheckRedirect}}
}

// SetupToken is the token of the first start's setup link (D73).
func (ts *TestServer) SetupToken() string {
	_, token, _ := strings.Cut(ts.BootstrapSetupURL, "/dashboard/setup/")
	return token
}

// NewUser adds a user to orgID as the command line would, and returns a
// browser signed in as that user.
func (ts *TestServer) NewUser(t testing.TB, orgID, email string, role carteiro.Role) *Browser {
	t.Helper()
	if _, err := ts.App.CreateUser(context.Background(), app.UserRequest{OrgID: orgID, Email: email, Password: UserPassword, Role: role}); err != nil {
		t.Fatalf("create user: %v", err)
	}
	b := ts.NewBrowser(t)
	b.Login(t, email, UserPassword)
	return b
}

// Login signs in and keeps the session's CSRF token.
func (b *Browser) Login(t testing.TB, email, password string) {
	t.Helper()
	r := b.Do(t, "POST", "/v1/platform/login", map[string]string{"email": email, "password": password}, nil)
	Expect(t, r, http.StatusOK, "")
	b.KeepCSRF(t, r)
}

// KeepCSRF remembers the csrfToken of a sign-in answer.
func (b *Browser) KeepCSRF(t testing.TB, r *Response) {
	t.Helper()
	tok, _ := r.JSON(t)["csrfToken"].(string)
	Must(t, tok != "", "no csrfToken in %s", r.Body)
	b.CSRF = tok
}

// Do sends one request with the session cookie and, on unsafe methods,
// the CSRF token; header adds or overrides headers ("" removes one).
func (b *Browser) Do(t testing.TB, method, path string, body any, header map[string]string) *Response {
	t.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatalf("encode body: %v", err)
		}
		rd = bytes.NewReader(raw)
	}
	hr, err := http.NewRequest(method, b.ts.URL+path, rd)
	if err != nil {
		t.Fatalf("build request: %v", err)
	}
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if b.CSRF != "" && method != http.MethodGet {
		hr.Header.Set("X-CSRF-Token", b.CSRF)
	}
	if b.Mode != "" {
		hr.Header.Set("X-Carteiro-Mode", b.Mode)
	}
	for k, v := range header {
		if v == "" {
			hr.Header.Del(k)
			continue
		}
		hr.Header.Set(k, v)
	}
	resp, err := b.client.Do(hr)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read response: %v", err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: raw}
}

// Reason returns error.details.reason of an error envelope, or "".
func (r *Response) Reason() string {
	var env struct {
		Error struct {
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &env)
	reason, _ := env.Error.Details["reason"].(string)
	return reason
}
