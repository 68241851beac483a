package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
)

// statusByCode is the one table from error codes to HTTP statuses (D11).
var statusByCode = map[string]int{
	carteiro.CodeInvalidJSON:         http.StatusBadRequest,
	carteiro.CodeValidation:          http.StatusUnprocessableEntity,
	carteiro.CodeMissingAPIKey:       http.StatusUnauthorized,
	carteiro.CodeInvalidAPIKey:       http.StatusUnauthorized,
	carteiro.CodeUnauthorized:        http.StatusUnauthorized,
	carteiro.CodeForbidden:           http.StatusForbidden,
	carteiro.CodeReauthRequired:      http.StatusForbidden,
	carteiro.CodeReauthFailed:        http.StatusForbidden,
	carteiro.CodeDomainNotVerified:   http.StatusForbidden,
	carteiro.CodeNotFound:            http.StatusNotFound,
	carteiro.CodeRouteNotFound:       http.StatusNotFound,
	carteiro.CodeMethodNotAllowed:    http.StatusMethodNotAllowed,
	carteiro.CodeConflict:            http.StatusConflict,
	carteiro.CodeInvalidState:        http.StatusConflict,
	carteiro.CodeIdempotencyReused:   http.StatusConflict,
	carteiro.CodeTokenExpired:        http.StatusGone,
	carteiro.CodePayloadTooLarge:     http.StatusRequestEntityTooLarge,
	carteiro.CodeRateLimited:         http.StatusTooManyRequests,
	carteiro.CodeWarmupQuotaExceeded: http.StatusTooManyRequests,
	carteiro.CodeInternal:            http.StatusInternalServerError,
	carteiro.CodeServiceUnavailable:  http.StatusServiceUnavailable,
	carteiro.CodeTemplateRenderError: http.StatusUnprocessableEntity,
	carteiro.CodeTemplateSyntaxError: http.StatusUnprocessableEntity,
}

// StatusOf returns the HTTP status for an error code; unknown codes are 500.
func StatusOf(code string) int {
	if s, ok := statusByCode[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

type errorBody struct {
	Error errorPayload `json:"error"`
}

type errorPayload struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
}

// envelope builds the error body of D9 for err in the request's language.
// Causes are logged, never shown; a 500 carries the request id instead.
func (s *Server) envelope(r *http.Request, err error) (int, errorBody) {
	e := carteiro.AsError(err)
	if e.Code == carteiro.CodeInternal && app.IsUnavailable(err) {
		e = &carteiro.Error{Code: carteiro.CodeServiceUnavailable, Err: err}
	}
	status := StatusOf(e.Code)
	details := map[string]any{}
	for k, v := range e.Details {
		details[k] = v
	}
	if e.Field != "" {
		details["field"] = e.Field
		details["reason"] = e.Reason
	}
	if status >= 500 {
		details = map[string]any{"requestId": requestID(r.Context())}
		level, msg := slog.LevelError, "request failed"
		switch {
		case clientLeft(r, err):
			// The client hung up (a page reloaded, a timeout of its own) and
			// the work was cancelled with its request: nothing for an
			// operator to act on, and nobody reads the answer.
			level, msg = slog.LevelInfo, "request abandoned by the client"
		case status == http.StatusServiceUnavailable:
			level = slog.LevelWarn
		}
		s.logger.Log(r.Context(), level, msg, "code", e.Code, "err", errors.Unwrap(e))
	}
	msg := s.catalog.Error(langOf(r.Context()), e.Code, e.Field, e.Reason)
	return status, errorBody{Error: errorPayload{Code: e.Code, Message: msg, Details: details}}
}

// clientLeft reports whether err is the cancellation of r's own context,
// which net/http cancels when the client closes its connection.
func clientLeft(r *http.Request, err error) bool {
	return errors.Is(err, context.Canceled) && errors.Is(r.Context().Err(), context.Canceled)
}

// writeError answers with the envelope of err.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status, body := s.envelope(r, err)
	if w.Header().Get("Retry-After") == "" {
		switch status {
		case http.StatusTooManyRequests:
			w.Header().Set("Retry-After", strconv.Itoa(s.retryAfter(body.Error.Details)))
		case http.StatusServiceUnavailable:
			// D11: nothing was acknowledged, so the client must try again;
			// a database restart takes seconds, not minutes.
			w.Header().Set("Retry-After", strconv.Itoa(unavailableRetryAfter))
			if errors.Is(err, errInflightFull) {
				// D60: bodies in flight drain within seconds.
				w.Header().Set("Retry-After", strconv.Itoa(inflightRetryAfter))
			}
		}
	}
	writeJSON(w, status, body)
}

// unavailableRetryAfter is the Retry-After, in seconds, of a 503 that names
// no wait of its own.
const unavailableRetryAfter = 5

// retryAfter is the wait a 429 without a limiter result implies: until the
// warmup quota resets (D34), else one second.
func (s *Server) retryAfter(details map[string]any) int {
	if at, ok := details["resetAt"].(string); ok {
		if t, err := time.Parse(time.RFC3339, at); err == nil {
			return max(1, ceilSeconds(t.Sub(s.Clock.Now())))
		}
	}
	return 1
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// mapAll converts every item of a list to its JSON shape, in order.
func mapAll[T, J any](items []T, toJSON func(T) J) []J {
	out := make([]J, len(items))
	for i, item := range items {
		out[i] = toJSON(item)
	}
	return out
}
