package dashboard

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// fakeAPI stands for the JSON API: it answers GET /v1/platform/emails/e1
// when the request carries the session cookie, and records what came.
type fakeAPI struct{ last *http.Request }

// Around is the API's middleware, which these tests do not need.
func (f *fakeAPI) Around(_ string, _ bool, next http.HandlerFunc) http.HandlerFunc { return next }

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.last = r
	if r.URL.Path == "/v1/platform/emails/e1" && r.Header.Get("Cookie") == "carteiro_session=s" {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"e1","html":"<p>hi<script>alert(1)</script></p>","text":"hi"}`)
		return
	}
	w.WriteHeader(http.StatusNotFound)
}

func newHandler(t *testing.T) (*Handler, *fakeAPI) {
	t.Helper()
	api := &fakeAPI{}
	h, err := New(api)
	if err != nil {
		t.Fatal(err)
	}
	return h, api
}

func get(h http.Handler, target string, hdr map[string]string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, target, nil)
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestRootRedirectsToDashboard(t *testing.T) {
	h, _ := newHandler(t)
	for _, p := range []string{"/", "/dashboard"} {
		w := get(h, p, nil)
		if w.Code != http.StatusFound || w.Header().Get("Location") != "/dashboard/" {
			t.Errorf("GET %s: %d %q, want 302 to /dashboard/", p, w.Code, w.Header().Get("Location"))
		}
	}
}

func TestOtherPathsGoToTheAPI(t *testing.T) {
	h, api := newHandler(t)
	w := get(h, "/v1/product/emails", nil)
	if w.Code != http.StatusNotFound || api.last == nil || api.last.URL.Path != "/v1/product/emails" {
		t.Fatalf("the API did not get /v1/product/emails")
	}
}

// Every page path answers the app's shell under the strict policy (D73),
// in the Accept-Language's language.
func TestPagesHaveStrictCSPAndLanguage(t *testing.T) {
	h, _ := newHandler(t)
	for _, p := range []string{"/dashboard/", "/dashboard/login", "/dashboard/setup/abc", "/dashboard/emails/123"} {
		w := get(h, p, map[string]string{"Accept-Language": "es-MX,es;q=0.9"})
		if w.Code != http.StatusOK {
			t.Fatalf("GET %s: %d", p, w.Code)
		}
		csp := w.Header().Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("GET %s: CSP %q lacks %q", p, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
			t.Errorf("GET %s: CSP allows inline code: %q", p, csp)
		}
		body := w.Body.String()
		if !strings.Contains(body, `<html lang="es">`) {
			t.Errorf("GET %s: no lang=es in %q", p, body[:80])
		}
		if strings.Contains(body, "<script>") || strings.Contains(body, "style=") {
			t.Errorf("GET %s: inline script or style in the shell", p)
		}
	}
}

func TestAssetsGzipAndETag(t *testing.T) {
	h, _ := newHandler(t)
	w := get(h, "/dashboard/assets/js/main.js", map[string]string{"Accept-Encoding": "gzip, br"})
	if w.Code != http.StatusOK || w.Header().Get("Content-Encoding") != "gzip" ||
		!strings.HasPrefix(w.Header().Get("Content-Type"), "text/javascript") {
		t.Fatalf("main.js: %d %v", w.Code, w.Header())
	}
	zr, err := gzip.NewReader(w.Body)
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(zr)
	if !bytes.Contains(plain, []byte("export function navigate")) {
		t.Fatal("main.js: gzip body is not the script")
	}
	etag := w.Header().Get("ETag")
	if w := get(h, "/dashboard/assets/js/main.js", map[string]string{"If-None-Match": etag}); w.Code != http.StatusNotModified {
		t.Errorf("revalidation: %d, want 304", w.Code)
	}
	if w := get(h, "/dashboard/assets/nope.js", nil); w.Code != http.StatusNotFound {
		t.Errorf("missing asset: %d", w.Code)
	}
}

// The viewer asks the API with the caller's cookie and mode, and answers
// the email's HTML under a CSP that sandboxes it, runs no script and loads
// remote images only when asked.
func TestViewerCSP(t *testing.T) {
	h, api := newHandler(t)
	w := get(h, "/dashboard/viewer/e1?mode=test", map[string]string{"Cookie": "carteiro_session=s"})
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "<p>hi") {
		t.Fatalf("viewer: %d %s", w.Code, w.Body)
	}
	if api.last.Header.Get("X-Carteiro-Mode") != "test" {
		t.Errorf("mode not passed: %v", api.last.Header)
	}
	csp := w.Header().Get("Content-Security-Policy")
	if !strings.HasPrefix(csp, "sandbox;") || strings.Contains(csp, "script-src") || !strings.Contains(csp, "default-src 'none'") ||
		!strings.Contains(csp, "img-src data:;") {
		t.Errorf("viewer CSP %q", csp)
	}
	w = get(h, "/dashboard/viewer/e1?images=1", map[string]string{"Cookie": "carteiro_session=s"})
	if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "img-src data: https: http:") {
		t.Errorf("images=1 CSP %q", csp)
	}
	// Without the session the API says 404 and so does the viewer.
	if w := get(h, "/dashboard/viewer/e1", nil); w.Code != http.StatusNotFound || strings.Contains(w.Body.String(), "hi") {
		t.Errorf("viewer without session: %d %s", w.Code, w.Body)
	}
	if w := get(h, "/dashboard/viewer/..%2fapi-keys", nil); w.Code != http.StatusNotFound {
		t.Errorf("odd id: %d", w.Code)
	}
}

// Another site must not be able to post HTML for this origin to show.
func TestPreviewOnlyFromSameOrigin(t *testing.T) {
	h, _ := newHandler(t)
	post := func(hdr map[string]string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "http://carteiro.test/dashboard/preview",
			strings.NewReader(url.Values{"html": {"<h1>phish</h1>"}}.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range hdr {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	for _, hdr := range []map[string]string{
		{"Sec-Fetch-Site": "cross-site", "Origin": "http://carteiro.test"},
		{"Origin": "https://evil.example"},
		{},
	} {
		if w := post(hdr); w.Code != http.StatusForbidden || strings.Contains(w.Body.String(), "phish") {
			t.Errorf("%v: %d %s", hdr, w.Code, w.Body)
		}
	}
	w := post(map[string]string{"Sec-Fetch-Site": "same-origin"})
	if w.Code != http.StatusOK || w.Body.String() != "<h1>phish</h1>" || !strings.HasPrefix(w.Header().Get("Content-Security-Policy"), "sandbox;") {
		t.Errorf("same origin: %d %s %v", w.Code, w.Body, w.Header())
	}
}
