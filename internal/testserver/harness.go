// Package testserver starts the real Carteiro for end-to-end and store
// tests: on a fresh SQLite file or PostgreSQL schema, with an in-process DNS
// server and a controllable clock. It is separate from testutil because it
// imports the whole service, which testutil's own users must not.
package testserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/apicheck"
	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/config"
	"github.com/carteiro/carteiro/internal/logctx"
	"github.com/carteiro/carteiro/internal/server"
	"github.com/carteiro/carteiro/internal/testutil"
)

// Backend names a store the tests run against.
type Backend string

const (
	SQLite   Backend = "sqlite"
	Postgres Backend = "postgres"
)

// Backends lists the stores every store and end-to-end test runs on.
func Backends() []Backend { return []Backend{SQLite, Postgres} }

// ForEachBackend runs fn as a subtest per store.
func ForEachBackend(t *testing.T, fn func(t *testing.T, b Backend)) {
	t.Helper()
	for _, b := range Backends() {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			fn(t, b)
		})
	}
}

// postgresAdminURL is where test schemas are created.
func postgresAdminURL() string {
	if u := os.Getenv("CARTEIRO_TEST_POSTGRES_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
}

// RequireService fails the test in CI (CI=true) and skips it elsewhere when
// a service the test needs is unreachable.
func RequireService(t testing.TB, name string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is unreachable and CI=true, so this test fails rather than skips: %v", name, err)
	}
	t.Skipf("%s is unreachable (%v); skipping. Start it, or run in CI where it is required.", name, err)
}

// DatabaseURL returns a fresh, empty database for b: a new SQLite file, or a
// new PostgreSQL schema dropped when the test ends.
func DatabaseURL(t testing.TB, b Backend) string {
	t.Helper()
	if b == SQLite {
		return "sqlite:" + t.TempDir() + "/carteiro.db"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	admin := postgresAdminURL()
	conn, err := pgx.Connect(ctx, admin)
	RequireService(t, "PostgreSQL at "+admin, err)
	defer conn.Close(ctx)
	schema := "t_" + strings.ToLower(carteiro.RandomBase62(12))
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Logf("drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Logf("drop schema %s: %v", schema, err)
		}
	})
	sep := "?"
	if strings.Contains(admin, "?") {
		sep = "&"
	}
	return admin + sep + "search_path=" + schema
}

// TestServer is a real Carteiro listening on 127.0.0.1 port 0, with an
// in-process DNS server as its resolver and a controllable clock.
type TestServer struct {
	*server.Server
	Backend Backend
	URL     string
	Clock   *testutil.Clock
	DNS     *testutil.DNSServer
	Config  config.Config
	// The bootstrap organization and its keys (D4).
	OrgID   string
	LiveKey string
	TestKey string

	t       testing.TB
	checker *apicheck.Checker
}

var (
	checkerOnce sync.Once
	checker     *apicheck.Checker
	checkerErr  error
)

// SubmissionLoopbackIsRemote, set to "true" in StartServer's env, makes
// the SMTP submission listener treat this test's loopback connections as
// remote ones (D74: no AUTH before STARTTLS), since tests can only connect
// over loopback. It is a test hook, not a CARTEIRO_* setting.
const SubmissionLoopbackIsRemote = "TEST_SUBMISSION_LOOPBACK_IS_REMOTE"

// StartServer starts a Carteiro on a fresh database of backend b. env
// overrides settings (CARTEIRO_* names of D56).
func StartServer(t testing.TB, b Backend, env map[string]string) *TestServer {
	t.Helper()
	checkerOnce.Do(func() { checker, checkerErr = apicheck.Load() })
	if checkerErr != nil {
		t.Fatalf("load API description: %v", checkerErr)
	}
	dns := testutil.NewDNSServer(t)
	settings := map[string]string{
		"CARTEIRO_HTTP_ADDR":       "127.0.0.1:0",
		"CARTEIRO_DATABASE_URL":    DatabaseURL(t, b),
		"CARTEIRO_DNS_SERVER":      dns.Addr(),
		"CARTEIRO_INBOUND_ADDR":    "",
		"CARTEIRO_SUBMISSION_ADDR": "",
		"CARTEIRO_SECRET_KEY":      carteiro.RandomBase62(48),
		"CARTEIRO_LOG_FORMAT":      "json",
		"CARTEIRO_RATE_LIMIT_IP":   "1000,2000",
		"CARTEIRO_RATE_LIMIT_KEY":  "1000,2000",
	}
	if os.Getenv("CI") != "" {
		// CI machines have libcrypto.so.3: every DKIM signature the
		// end-to-end tests verify then comes from it, and a machine where
		// it fails to load fails the tests instead of falling back.
		settings["CARTEIRO_DKIM_LIBCRYPTO"] = "on"
	}
	loopbackIsRemote := false
	for k, v := range env {
		if k == SubmissionLoopbackIsRemote {
			loopbackIsRemote = v == "true"
			continue
		}
		settings[k] = v
	}
	cfg, err := config.Load(func(k string) (string, bool) { v, ok := settings[k]; return v, ok })
	if err != nil {
		t.Fatalf("settings: %v", err)
	}
	clock := testutil.NewClock(time.Now())
	logger := slog.New(logctx.Handler{Handler: slog.NewJSONHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn})})
	ctx := context.Background()
	srv, err := server.Open(ctx, server.Options{Config: cfg, Clock: clock, Logger: logger,
		QueuePollInterval: 50 * time.Millisecond, SweepInterval: time.Hour, SubmissionLoopbackIsRemote: loopbackIsRemote})
	if err != nil {
		t.Fatalf("start server: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	if err := srv.Bootstrap(ctx); err != nil {
		t.Fatalf("bootstrap: %v", err)
	}
	if err := srv.Listen(cfg.HTTPAddr); err != nil {
		t.Fatalf("listen: %v", err)
	}
	ts := &TestServer{Server: srv, Backend: b, URL: "http://" + srv.Addr(), Clock: clock, DNS: dns, Config: cfg, t: t, checker: checker}
	watchRiverLeader(t, cfg.DatabaseURL, clock)
	if srv.BootstrapOrg != nil { // nil when env points at a database already used
		ts.OrgID = srv.BootstrapOrg.ID
	}
	for _, k := range srv.BootstrapKeys {
		if k.Key.Mode == carteiro.ModeLive {
			ts.LiveKey = k.Secret
		} else {
			ts.TestKey = k.Secret
		}
	}
	return ts
}

// testWriter sends server logs to the test log, shown only on failure.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// NewOrg creates another organization with a live and a test key.
func (ts *TestServer) NewOrg(t testing.TB, name string) (orgID, liveKey, testKey string) {
	t.Helper()
	ctx := context.Background()
	org, err := ts.App.CreateOrganization(ctx, name)
	if err != nil {
		t.Fatalf("create organization: %v", err)
	}
	live := ts.NewKey(t, app.KeyRequest{OrgID: org.ID, Name: "live", Mode: carteiro.ModeLive})
	test := ts.NewKey(t, app.KeyRequest{OrgID: org.ID, Name: "test", Mode: carteiro.ModeTest})
	return org.ID, live, test
}

// NewKey creates a key as the CLI would and returns its secret.
func (ts *TestServer) NewKey(t testing.TB, r app.KeyRequest) string {
	t.Helper()
	nk, err := ts.App.CreateKey(context.Background(), r)
	if err != nil {
		t.Fatalf("create key: %v", err)
	}
	return nk.Secret
}

// noRedirects shows tests the redirects themselves (the click route).
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// Response is an HTTP answer read whole.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic map.
func (r *Response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("response is not a JSON object: %v\n%s", err, r.Body)
	}
	return m
}

// Decode decodes the body into v.
func (r *Response) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode response: %v\n%s", err, r.Body)
	}
}

// ErrorCode returns error.code of an error envelope, or "".
func (r *Response) ErrorCode() string {
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &env)
	return env.Error.Code
}

// Request describes one call; Body may be a string or []byte (sent as is)
// or any value (sent as JSON).
type Request struct {
	Method string
	Path   string
	Key    string
	Body   any
	Header map[string]string
}

// Do sends req and checks the answer against docs/openapi.yaml, so the
// description cannot drift from the code.
func (ts *TestServer) Do(t testing.TB, req Request) *Response {
	t.Helper()
	var body io.Reader
	switch b := req.Body.(type) {
	case nil:
	case string:
		body = strings.NewReader(b)
	case []byte:
		body = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("encode body: %v", err)
		}
		body = bytes.NewReader(raw)
	}
	hr, err := http.NewRequest(req.Method, ts.URL+req.Path, body)
	if err != nil {
		t.Fatalf("build request: %v", err)
	}
	if req.Body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if req.Key != "" {
		hr.Header.Set("Authorization", "Bearer "+req.Key)
	}
	for k, v := range req.Header {
		hr.Header.Set(k, v)
	}
	resp, err := noRedirects.Do(hr)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.Path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read response: %v", err)
	}
	if err := ts.checker.CheckResponse(hr, resp.StatusCode, resp.Header, raw); err != nil {
		t.Errorf("%s %s: response %d does not match docs/openapi.yaml: %v\n%s", req.Method, req.Path, resp.StatusCode, err, raw)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: raw}
}

// Expect fails the test unless r has the status (and, for errors, the code).
func Expect(t testing.TB, r *Response, status int, code string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d; body %s", r.Status, status, r.Body)
	}
	if code != "" && r.ErrorCode() != code {
		t.Fatalf("error code %q, want %q; body %s", r.ErrorCode(), code, r.Body)
	}
}

// Must is a helper for fmt-style fatal checks.
func Must(t testing.TB, ok bool, format string, args ...any) {
	t.Helper()
	if !ok {
		t.Fatalf("%s", fmt.Sprintf(format, args...))
	}
}
