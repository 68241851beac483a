package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/carteiro/carteiro/docs"
	"github.com/carteiro/carteiro/internal/testserver"
)

func TestOperationalRoutes(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		r := ts.Do(t, testserver.Request{Method: "GET", Path: "/healthz"})
		testserver.Expect(t, r, 200, "")
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/readyz"})
		testserver.Expect(t, r, 200, "")
		testserver.Must(t, r.JSON(t)["status"] == "ok", "readyz body %s", r.Body)

		// Requests are counted by route and status; the queue depth is exported.
		createDomain(t, ts, ts.LiveKey, "metrics.example")
		ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains/0190aaaa-0000-7000-8000-000000000000", Key: ts.LiveKey})
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/metrics"})
		testserver.Expect(t, r, 200, "")
		body := string(r.Body)
		for _, want := range []string{
			`carteiro_http_requests_total{method="POST",route="POST /v1/product/domains",status="201"} 1`,
			`carteiro_http_requests_total{method="GET",route="GET /v1/product/domains/{id}",status="404"} 1`,
			`carteiro_http_request_duration_seconds_bucket{method="POST",route="POST /v1/product/domains"`,
			`carteiro_queue_jobs{state="available"}`,
		} {
			testserver.Must(t, strings.Contains(body, want), "metrics lack %s", want)
		}

		// The API description is served as JSON and equals docs/openapi.yaml.
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/openapi.json"})
		testserver.Expect(t, r, 200, "")
		want, err := docs.OpenAPIJSON()
		testserver.Must(t, err == nil, "openapi json: %v", err)
		var got, exp any
		testserver.Must(t, json.Unmarshal(r.Body, &got) == nil && json.Unmarshal(want, &exp) == nil, "openapi is not JSON")
		g, _ := json.Marshal(got)
		e, _ := json.Marshal(exp)
		testserver.Must(t, bytes.Equal(g, e), "served openapi.json differs from docs/openapi.yaml")
	})
}

func TestMetricsToken(t *testing.T) {
	t.Parallel()
	ts := testserver.StartServer(t, testserver.SQLite, map[string]string{"CARTEIRO_METRICS_TOKEN": "s3cret-token"})
	testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/metrics"}), http.StatusUnauthorized, "MISSING_API_KEY")
	testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/metrics", Key: "wrong"}), http.StatusUnauthorized, "INVALID_API_KEY")
	testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/metrics", Key: "s3cret-token"}), http.StatusOK, "")
}

func TestReadyzFailsWhenDatabaseIsGone(t *testing.T) {
	t.Parallel()
	ts := testserver.StartServer(t, testserver.SQLite, nil)
	testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/readyz"}), 200, "")
	// Closing the store's connections is what an unreachable database looks
	// like to the process (the queue is stopped first: its retries on a
	// closed database would only fill the log).
	testserver.Must(t, ts.Queue.Stop(t.Context()) == nil, "stop queue")
	testserver.Must(t, ts.Store.Close() == nil, "close store")
	r := ts.Do(t, testserver.Request{Method: "GET", Path: "/readyz"})
	testserver.Expect(t, r, http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
	testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/healthz"}), 200, "")
}
