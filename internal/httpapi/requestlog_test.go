package httpapi

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestRequestLogDurationInMilliseconds is D72: the request line carries
// duration_ms, a number of milliseconds in both log formats.
func TestRequestLogDurationInMilliseconds(t *testing.T) {
	s := testServer(t)
	var buf bytes.Buffer
	s.logger = slog.New(slog.NewJSONHandler(&buf, nil))
	s.outer(httptest.NewRecorder(), httptest.NewRequest("GET", "/x", nil), func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(204)
	})
	var line map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(buf.Bytes()), &line); err != nil {
		t.Fatalf("log %q: %v", buf.String(), err)
	}
	ms, ok := line["duration_ms"].(float64)
	if !ok || ms < 0 || ms > 60_000 || line["duration"] != nil {
		t.Fatalf("want duration_ms in milliseconds and no duration: %s", buf.String())
	}
}
