package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testutil"
)

// TestUseCaseErrorsMapToStatusAndBody (D9, D11): what a use case returns
// reaches the client as the one status its code has, with the details a
// client acts on (the field at fault, the domain and quota, when to retry)
// and nothing of an internal cause.
func TestUseCaseErrorsMapToStatusAndBody(t *testing.T) {
	now := time.Date(2026, 11, 28, 22, 0, 0, 0, time.UTC)
	s := testServer(t)
	s.Clock = testutil.NewClock(now)
	warmup := &carteiro.Error{Code: carteiro.CodeWarmupQuotaExceeded, Details: map[string]any{"domainId": "d1", "dailyQuota": 50,
		"resetAt": now.Truncate(24 * time.Hour).Add(24 * time.Hour).Format(time.RFC3339)}}
	for _, c := range []struct {
		name       string
		err        error
		status     int
		code       string
		details    map[string]any
		retryAfter string
	}{
		{"validation", carteiro.Invalid("to", "required"), 422, carteiro.CodeValidation, map[string]any{"field": "to", "reason": "required"}, ""},
		{"sender domain", &carteiro.Error{Code: carteiro.CodeDomainNotVerified, Details: map[string]any{"field": "from"}}, 403,
			carteiro.CodeDomainNotVerified, map[string]any{"field": "from"}, ""},
		{"not found", fmt.Errorf("get email: %w", carteiro.NotFound()), 404, carteiro.CodeNotFound, map[string]any{}, ""},
		{"idempotency key reused", &carteiro.Error{Code: carteiro.CodeIdempotencyReused}, 409, carteiro.CodeIdempotencyReused, map[string]any{}, ""},
		{"invalid state", carteiro.InvalidState("sent"), 409, carteiro.CodeInvalidState, map[string]any{"status": "sent"}, ""},
		// D34: retry when the quota resets, two hours later.
		{"warmup quota", warmup, 429, carteiro.CodeWarmupQuotaExceeded, warmup.Details, "7200"},
		// D11: the database is away; nothing was acknowledged.
		{"store unavailable", &carteiro.Error{Code: carteiro.CodeInternal, Err: fmt.Errorf("accept: %w", store.ErrUnavailable)}, 503,
			carteiro.CodeServiceUnavailable, nil, "5"},
		{"internal", &carteiro.Error{Code: carteiro.CodeInternal, Err: fmt.Errorf("insert: duplicate key in emails_pkey")}, 500,
			carteiro.CodeInternal, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/emails", nil)
			w := httptest.NewRecorder()
			s.outer(w, r, func(w http.ResponseWriter, r *http.Request) { s.writeError(w, r, c.err) })
			var env envelopeJSON
			if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil || w.Code != c.status || env.Error.Code != c.code || env.Error.Message == "" {
				t.Fatalf("answer %d %s, want %d %s", w.Code, w.Body, c.status, c.code)
			}
			if got := w.Header().Get("Retry-After"); got != c.retryAfter {
				t.Errorf("Retry-After %q, want %q", got, c.retryAfter)
			}
			if c.status >= 500 {
				// Only the request id: the cause stays in the log.
				if len(env.Error.Details) != 1 || env.Error.Details["requestId"] != w.Header().Get("X-Request-Id") {
					t.Errorf("details of a %d: %v", c.status, env.Error.Details)
				}
				return
			}
			want, _ := json.Marshal(c.details)
			got, _ := json.Marshal(env.Error.Details)
			if string(got) != string(want) {
				t.Errorf("details %s, want %s", got, want)
			}
		})
	}
}
