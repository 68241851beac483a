package apicheck

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const (
	domainID  = "0190f0c4-7a51-7c3e-9a2b-3f1d2e4c5b6a"
	otherID   = "0190f0c4-7a51-7c3e-9a2b-3f1d2e4c5b6b"
	createdAt = "2025-03-01T10:00:00.123456Z"
)

// loadChecker loads the real document; every test gets its own Checker so
// that tests stay independent. The subtests of one table share their test's
// Checker, which is safe for concurrent use: loading compiles every schema
// of the document (about 100 ms of CPU), which per subtest would dominate
// the package's run time.
func loadChecker(t *testing.T) *Checker {
	t.Helper()
	c, err := Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

// exchange is one request and the response a real server gave to it.
type exchange struct {
	req    *http.Request
	status int
	header http.Header
	body   []byte
}

// roundTrip serves handler on a loopback port and sends one request to it,
// so the checker sees responses exactly as an end-to-end test would.
func roundTrip(t *testing.T, method, path string, handler http.HandlerFunc) exchange {
	t.Helper()
	srv := httptest.NewServer(handler)
	defer srv.Close()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return exchange{req: req, status: resp.StatusCode, header: resp.Header, body: body}
}

func (e exchange) check(c *Checker) error { return c.CheckResponse(e.req, e.status, e.header, e.body) }

// productHeaders sets what every Product response carries (D10, D13).
func productHeaders(h http.Header) {
	h.Set("X-RateLimit-Limit", "100")
	h.Set("X-RateLimit-Remaining", "99")
	h.Set("X-RateLimit-Reset", "1")
	h.Set("Content-Language", "en")
	h.Set("X-Request-Id", "req-1")
}

// answer is a handler that sends the Product headers, then status and v as
// JSON, after edit has had its say on the headers (to remove one, say).
func answer(status int, v any, edit ...func(http.Header)) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		productHeaders(w.Header())
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		for _, e := range edit {
			e(w.Header())
		}
		w.WriteHeader(status)
		if err := json.NewEncoder(w).Encode(v); err != nil {
			panic(err)
		}
	}
}

// raw is a handler sending body as is with the given Content-Type.
func raw(status int, contentType, body string, edit ...func(http.Header)) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		productHeaders(w.Header())
		w.Header().Set("Content-Type", contentType)
		for _, e := range edit {
			e(w.Header())
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

func without(name string) func(http.Header) { return func(h http.Header) { h.Del(name) } }

func with(name, value string) func(http.Header) {
	return func(h http.Header) { h.Set(name, value) }
}

type obj = map[string]any

func envelope(code string, details obj) obj {
	return obj{"error": obj{"code": code, "message": "some message", "details": details}}
}

func domain() obj {
	return obj{
		"id": domainID, "name": "example.com", "status": "pending",
		"dkimSelector": "cart1", "dkimPublicKey": "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA",
		"verifiedAt": nil, "lastCheckAt": nil, "createdAt": createdAt,
	}
}

func domainDetail() obj {
	d := domain()
	d["dnsRecordsToPublish"] = []obj{
		{"type": "TXT", "host": "_carteiro.example.com", "value": "carteiro-verification=abc", "ttl": 3600},
		{"type": "CNAME", "host": "bounces.example.com", "value": "bounces.carteiro.localhost"},
	}
	return d
}

func record(kind, typ, host, value string, required bool) obj {
	return obj{"record": kind, "type": typ, "host": host, "value": value, "ttl": 3600, "status": "pending", "required": required}
}

func createdDomain() obj {
	return obj{
		"id": domainID, "name": "example.com", "status": "pending",
		"records": []obj{
			record("ownership", "TXT", "_carteiro.example.com", "carteiro-verification=abc", true),
			record("dkim", "TXT", "cart1._domainkey.example.com", "v=DKIM1; k=rsa; p=MIIB", true),
			record("spf", "CNAME", "bounces.example.com", "bounces.carteiro.localhost", true),
			record("dmarc", "TXT", "_dmarc.example.com", "v=DMARC1; p=none;", false),
		},
	}
}

func check(status string, found ...string) obj {
	if found == nil {
		found = []string{}
	}
	return obj{"status": status, "expected": "v=spf1", "found": found}
}

func verification() obj {
	return obj{
		"id": domainID, "status": "verified", "verifiedAt": createdAt, "lastCheckAt": createdAt,
		"checks": obj{
			"spf": check("pass", "bounces.carteiro.localhost."), "dkim": check("pass", "v=DKIM1; k=rsa; p=MIIB"),
			"dmarc": check("fail"), "ownership": check("pass", "carteiro-verification=abc"),
		},
	}
}

// edited returns v after f changed it, for one-line variations of a sample.
func edited(v obj, f func(obj)) obj {
	f(v)
	return v
}

// wantProblem asserts err is a *ResponseError naming a problem containing
// every one of parts.
func wantProblem(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("the response passed; want a problem with %q", parts)
	}
	re, ok := err.(*ResponseError)
	if !ok {
		t.Fatalf("error is %T (%v), want *ResponseError", err, err)
	}
	for _, p := range re.Problems {
		all := true
		for _, part := range parts {
			all = all && strings.Contains(p, part)
		}
		if all {
			return
		}
	}
	t.Fatalf("no problem contains %q; got:\n%v", parts, err)
}
