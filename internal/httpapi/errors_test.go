package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/i18n"
	"github.com/carteiro/carteiro/internal/ratelimit"
)

func testServer(t testing.TB) *Server {
	t.Helper()
	cat, err := i18n.New()
	if err != nil {
		t.Fatal(err)
	}
	limits := DefaultLimits()
	// Fuzzing sends far more than a client could; the limiter is not under test.
	limits.PerIP = ratelimit.Rule{Rate: 1_000_000, Period: time.Second, Burst: 1_000_000}
	return &Server{Deps: Deps{Limiter: ratelimit.NewMemory(carteiro.SystemClock{}), Limits: limits},
		catalog: cat, logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

type envelopeJSON struct {
	Error struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	} `json:"error"`
}

func TestEveryCodeHasAStatus(t *testing.T) {
	for _, code := range i18n.Codes() {
		if _, ok := statusByCode[code]; !ok {
			t.Errorf("code %s has no HTTP status", code)
		}
	}
	if StatusOf("SOMETHING_NEW") != 500 {
		t.Error("unknown code must be 500")
	}
}

func TestInternalErrorsHideTheirCause(t *testing.T) {
	s := testServer(t)
	r := httptest.NewRequest("GET", "/x", nil)
	w := httptest.NewRecorder()
	s.outer(w, r, func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, errors.New("pq: password authentication failed for user secret_admin"))
	})
	if w.Code != 500 || strings.Contains(w.Body.String(), "secret_admin") {
		t.Fatalf("internal error leaked: %d %s", w.Code, w.Body)
	}
	var env envelopeJSON
	if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil || env.Error.Code != "INTERNAL_ERROR" || env.Error.Details["requestId"] == "" {
		t.Fatalf("envelope %s", w.Body)
	}
	if env.Error.Details["requestId"] != w.Header().Get("X-Request-Id") {
		t.Fatalf("requestId %v differs from X-Request-Id %s", env.Error.Details["requestId"], w.Header().Get("X-Request-Id"))
	}
}

func TestPanicBecomesEnvelope(t *testing.T) {
	s := testServer(t)
	r := httptest.NewRequest("GET", "/x", nil)
	r.Header.Set("Accept-Language", "en")
	w := httptest.NewRecorder()
	s.outer(w, r, func(w http.ResponseWriter, r *http.Request) { panic("boom") })
	var env envelopeJSON
	if w.Code != 500 || json.Unmarshal(w.Body.Bytes(), &env) != nil || env.Error.Code != "INTERNAL_ERROR" || strings.Contains(w.Body.String(), "boom") {
		t.Fatalf("panic answer: %d %s", w.Code, w.Body)
	}
	if w.Header().Get("X-RateLimit-Limit") == "" || w.Header().Get("Content-Language") != "en" {
		t.Fatalf("headers missing on a panic: %v", w.Header())
	}
}

// FuzzErrorEnvelope: whatever error a use case returns, the answer is a
// well-formed envelope with a known status and an object as details (D9).
func FuzzErrorEnvelope(f *testing.F) {
	f.Add("NOT_FOUND", "name", "required", "en")
	f.Add("", "", "", "")
	f.Add("VALIDATION_ERROR", "to[2]", "weird\x00reason", "es-MX;q=0.1")
	f.Add("BOGUS", "{{.Field}}", "%s", "pt")
	s := testServer(f)
	f.Fuzz(func(t *testing.T, code, field, reason, lang string) {
		if !utf8.ValidString(code) {
			t.Skip("codes are ASCII constants; JSON would rewrite invalid UTF-8")
		}
		r := httptest.NewRequest("GET", "/x", nil)
		r.Header.Set("Accept-Language", lang)
		w := httptest.NewRecorder()
		s.outer(w, r, func(w http.ResponseWriter, r *http.Request) {
			s.writeError(w, r, &carteiro.Error{Code: code, Field: field, Reason: reason})
		})
		var env envelopeJSON
		if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil {
			t.Fatalf("not JSON: %v %q", err, w.Body)
		}
		if env.Error.Code != code || env.Error.Message == "" || env.Error.Details == nil {
			t.Fatalf("envelope %q", w.Body)
		}
		if w.Code != StatusOf(code) || w.Code < 400 {
			t.Fatalf("status %d for code %q", w.Code, code)
		}
	})
}
