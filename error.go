package carteiro

import (
	"errors"
	"fmt"
)

// Error codes are stable English identifiers (D9, D11). The HTTP layer maps each
// code to a status in one table; the domain never speaks HTTP.
const (
	CodeInvalidJSON   = "INVALID_JSON"
	CodeValidation    = "VALIDATION_ERROR"
	CodeMissingAPIKey = "MISSING_API_KEY"
	CodeInvalidAPIKey = "INVALID_API_KEY"
	// CodeUnauthorized is a dashboard request without a valid session, or
	// a refused login (D73).
	CodeUnauthorized        = "UNAUTHORIZED"
	CodeForbidden           = "FORBIDDEN"
	CodeReauthRequired      = "REAUTH_REQUIRED"
	CodeReauthFailed        = "REAUTH_FAILED"
	CodeDomainNotVerified   = "DOMAIN_NOT_VERIFIED"
	CodeNotFound            = "NOT_FOUND"
	CodeRouteNotFound       = "ROUTE_NOT_FOUND"
	CodeMethodNotAllowed    = "METHOD_NOT_ALLOWED"
	CodeConflict            = "CONFLICT"
	CodeInvalidState        = "INVALID_STATE"
	CodeIdempotencyReused   = "IDEMPOTENCY_KEY_REUSED"
	CodeTokenExpired        = "TOKEN_EXPIRED"
	CodePayloadTooLarge     = "PAYLOAD_TOO_LARGE"
	CodeRateLimited         = "RATE_LIMIT_EXCEEDED"
	CodeWarmupQuotaExceeded = "WARMUP_QUOTA_EXCEEDED"
	CodeInternal            = "INTERNAL_ERROR"
	CodeServiceUnavailable  = "SERVICE_UNAVAILABLE"
	CodeTemplateRenderError = "TEMPLATE_RENDER_ERROR"
	CodeTemplateSyntaxError = "TEMPLATE_SYNTAX_ERROR"
)

// Error is the one error type use cases return to callers. Code selects the
// status and the localized message; Reason is a machine-readable word that
// refines a VALIDATION_ERROR (for example "required" or "invalid_email"); Details
// carries the extra keys of the envelope's details object.
type Error struct {
	Code    string
	Field   string
	Reason  string
	Details map[string]any
	// Err is the underlying cause, logged but never shown to API users.
	Err error
}

func (e *Error) Error() string {
	msg := e.Code
	if e.Field != "" {
		msg += " " + e.Field
	}
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an error with a code and a cause for the logs.
func Errorf(code string, format string, args ...any) *Error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
}

// Invalid is a VALIDATION_ERROR naming the field (a JSON path such as "to[2]")
// and why it was refused.
func Invalid(field, reason string) *Error {
	return &Error{Code: CodeValidation, Field: field, Reason: reason}
}

// NotFound is the answer for unknown ids and for ids of another organization
// or mode (D11): the two are indistinguishable on purpose.
func NotFound() *Error { return &Error{Code: CodeNotFound} }

// Conflict reports a duplicate, naming the existing object when there is one.
func Conflict(existingID string) *Error {
	e := &Error{Code: CodeConflict}
	if existingID != "" {
		e.Details = map[string]any{"id": existingID}
	}
	return e
}

// InvalidState reports an action refused in the object's current status.
func InvalidState(status string) *Error {
	return &Error{Code: CodeInvalidState, Details: map[string]any{"status": status}}
}

// ErrorCode returns the code of err, INTERNAL_ERROR for any error that is not
// a *Error, and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// AsError returns err as *Error, wrapping anything unexpected as INTERNAL_ERROR.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeInternal, Err: err}
}
