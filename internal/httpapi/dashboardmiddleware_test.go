package httpapi

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/carteiro/carteiro/internal/dashboard"
	"github.com/carteiro/carteiro/internal/ratelimit"
)

// The dashboard's pages and assets go through the API's middleware: each
// request has an id, a log line under its route's name (never the setup
// link's token), request metrics and the per-IP limit (issue 26).
func TestDashboardRequestsGoThroughTheMiddleware(t *testing.T) {
	s := testServer(t)
	var logs bytes.Buffer
	s.logger = slog.New(slog.NewJSONHandler(&logs, nil))
	s.Metrics = NewMetrics(nil)
	s.Limits.PerIP = ratelimit.Rule{Rate: 1, Period: 60e9, Burst: 3}
	web, err := dashboard.New(s)
	if err != nil {
		t.Fatal(err)
	}
	do := func(target string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		web.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
		return w
	}
	for _, target := range []string{"/dashboard/emails", "/dashboard/assets/app.css", "/dashboard/setup/s3cr3t-t0ken"} {
		w := do(target)
		if w.Code != http.StatusOK || w.Header().Get("X-Request-Id") == "" || w.Header().Get("X-RateLimit-Limit") != "3" {
			t.Errorf("%s: status %d, headers %v", target, w.Code, w.Header())
		}
	}
	if w := do("/dashboard/emails"); w.Code != http.StatusTooManyRequests {
		t.Errorf("the 4th page within the per-IP burst of 3: status %d, want 429", w.Code)
	}

	var routes []string
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var l struct{ Msg, Path, Route string }
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if l.Msg == "request" {
			routes = append(routes, l.Route+" "+l.Path)
		}
	}
	want := []string{"GET /dashboard/{page} /dashboard/emails", "GET /dashboard/assets/{file} /dashboard/assets/app.css",
		"GET /dashboard/setup/{token} GET /dashboard/setup/{token}", "unmatched /dashboard/emails"}
	if strings.Join(routes, "|") != strings.Join(want, "|") {
		t.Errorf("request lines\n%q\nwant\n%q", routes, want)
	}
	if strings.Contains(logs.String(), "s3cr3t-t0ken") {
		t.Errorf("the setup link's token is in the log: %s", logs.String())
	}
	scrape := httptest.NewRecorder()
	s.Metrics.handler().ServeHTTP(scrape, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if counted := `carteiro_http_requests_total{method="GET",route="GET /dashboard/{page}",status="200"} 1`; !strings.Contains(scrape.Body.String(), counted) {
		t.Errorf("metrics lack %s", counted)
	}
}
