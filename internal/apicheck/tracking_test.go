package apicheck

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/carteiro/carteiro/internal/tracking"
)

// The tracking routes (D53) answer what API routes never do: a binary GIF
// and a redirect whose body net/http writes itself. These cases serve them
// the way internal/httpapi does, with the real pixel and http.Redirect.

const (
	pixelPath = "/t/o/opaque-token"
	clickPath = "/t/c/opaque-token"
)

// pixel answers like the open handler.
func pixel(edit ...func(http.Header)) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		productHeaders(w.Header()) // the outer middleware adds them to every answer
		w.Header().Set("Content-Type", "image/gif")
		w.Header().Set("Cache-Control", "no-store, no-cache, must-revalidate, private")
		for _, e := range edit {
			e(w.Header())
		}
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(tracking.Pixel)
	}
}

// redirect answers like the click handler, with net/http's own redirect.
func redirect(to string, code int, edit ...func(http.Header)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		productHeaders(w.Header())
		w.Header().Set("Cache-Control", "no-store")
		for _, e := range edit {
			e(w.Header())
		}
		http.Redirect(w, r, to, code)
	}
}

// roundTripNoRedirect is roundTrip with a client that stops at the first
// answer, as a test of a redirect must (the default client follows it).
func roundTripNoRedirect(t *testing.T, method, path string, handler http.HandlerFunc) exchange {
	t.Helper()
	srv := httptest.NewServer(handler)
	defer srv.Close()
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Do(req)
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

func TestTrackingConformingResponsesPass(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, method, path string
		handler            http.HandlerFunc
	}{
		{"pixel", "GET", pixelPath, pixel()},
		{"pixel without the optional headers", "GET", pixelPath, pixel(without("X-RateLimit-Limit"), without("X-RateLimit-Remaining"),
			without("X-RateLimit-Reset"), without("Content-Language"), without("X-Request-Id"))},
		{"pixel to HEAD", "HEAD", pixelPath, pixel()},
		{"forged pixel token", "GET", pixelPath, answer(404, envelope("NOT_FOUND", obj{}))},
		{"click", "GET", clickPath, redirect("https://example.com/pricing?utm=x#top", http.StatusFound)},
		{"click to a non-ASCII link", "GET", clickPath, redirect("https://example.com/preço", http.StatusFound)},
		{"click to HEAD", "HEAD", clickPath, redirect("https://example.com/", http.StatusFound)},
		{"forged click token", "GET", clickPath, answer(404, envelope("NOT_FOUND", obj{}))},
		{"per-IP limit", "GET", clickPath, answer(429, envelope("RATE_LIMIT_EXCEEDED", obj{}), with("Retry-After", "1"))},
	}
	c := loadChecker(t) // safe for concurrent use; loading is the slow part
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ex := roundTripNoRedirect(t, tc.method, tc.path, tc.handler)
			if err := ex.check(c); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// The redirect's GET answer does carry net/http's HTML note, so the case
// above exercises a non-empty text/html body, not only an empty one.
func TestRedirectBodyIsHTML(t *testing.T) {
	t.Parallel()
	ex := roundTripNoRedirect(t, "GET", clickPath, redirect("https://example.com/", http.StatusFound))
	if ex.status != http.StatusFound || len(ex.body) == 0 || ex.header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("got %d %q with %q; want 302 with net/http's HTML note", ex.status, ex.header.Get("Content-Type"), ex.body)
	}
}

func TestTrackingNonConformingResponsesFail(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, method, path string
		handler            http.HandlerFunc
		want               []string // substrings of one problem
	}{
		{"pixel as PNG", "GET", pixelPath, pixel(with("Content-Type", "image/png")),
			[]string{"Content-Type image/png is not documented", "image/gif"}},
		{"cacheable pixel", "GET", pixelPath, pixel(without("Cache-Control")),
			[]string{"required header Cache-Control is missing"}},
		{"pixel cached for a day", "GET", pixelPath, pixel(with("Cache-Control", "max-age=86400")),
			[]string{"header Cache-Control"}},
		{"forged token answered 403", "GET", pixelPath, answer(403, envelope("FORBIDDEN", obj{})),
			[]string{"status 403 is not documented"}},
		{"forged token with a plain-text 404", "GET", clickPath, raw(404, "text/plain; charset=utf-8", "404 page not found\n"),
			[]string{"Content-Type text/plain is not documented"}},
		{"forged token with another code", "GET", clickPath, answer(404, envelope("ROUTE_NOT_FOUND", obj{})),
			[]string{"at /error/code"}},
		{"permanent redirect", "GET", clickPath, redirect("https://example.com/", http.StatusMovedPermanently),
			[]string{"status 301 is not documented"}},
		{"relative redirect", "GET", clickPath, redirect("/elsewhere", http.StatusFound),
			[]string{"header Location"}},
		{"redirect without Location", "GET", clickPath, raw(302, "text/html; charset=utf-8", ""),
			[]string{"required header Location is missing"}},
		{"cacheable redirect", "GET", clickPath, redirect("https://example.com/", http.StatusFound, func(h http.Header) { h.Del("Cache-Control") }),
			[]string{"required header Cache-Control is missing"}},
		{"429 without Retry-After", "GET", pixelPath, answer(429, envelope("RATE_LIMIT_EXCEEDED", obj{})),
			[]string{"required header Retry-After is missing"}},
	}
	c := loadChecker(t) // safe for concurrent use; loading is the slow part
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			wantProblem(t, roundTripNoRedirect(t, tc.method, tc.path, tc.handler).check(c), tc.want...)
		})
	}
}

// Tracking routes sit at the root and take GET only: other methods are the
// router's 405 (D11), and the paths are not under /v1/product.
func TestTrackingRoutesMatchAtTheRoot(t *testing.T) {
	t.Parallel()
	c := loadChecker(t)
	if r, _ := c.find("GET", pixelPath); r == nil || r.op.ID != "trackOpen" || r.op.NeedsAuth {
		t.Errorf("GET %s: got %+v, want trackOpen without auth", pixelPath, r)
	}
	if r, _ := c.find("HEAD", clickPath); r == nil || r.op.ID != "trackClick" {
		t.Errorf("HEAD %s: got %+v, want trackClick", clickPath, r)
	}
	if r, allowed := c.find("POST", clickPath); r != nil || len(allowed) != 1 || allowed[0] != "GET" {
		t.Errorf("POST %s: got %+v allowed %v, want no route, GET allowed", clickPath, r, allowed)
	}
	if r, _ := c.find("GET", "/v1/product"+pixelPath); r != nil {
		t.Errorf("the pixel matched under /v1/product: %+v", r)
	}
	if c.isProduct(pixelPath) {
		t.Error("tracking paths count as Product paths")
	}
	if err := roundTripNoRedirect(t, "POST", clickPath, answer(405, envelope("METHOD_NOT_ALLOWED", obj{}), with("Allow", "GET, HEAD"))).check(c); err != nil {
		t.Errorf("405 for POST: %v", err)
	}
}
