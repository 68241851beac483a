package carteiro

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Error is an answer other than 2xx: the error envelope of the API
// (api-v1.md section 7, D9, D11) with the HTTP status and request id.
//
//	var apiErr *carteiro.Error
//	if errors.As(err, &apiErr) && apiErr.Code == carteiro.CodeValidation {
//		fmt.Println(apiErr.Field, apiErr.Reason)
//	}
type Error struct {
	// Status is the HTTP status code.
	Status int
	// Code is the stable identifier, such as VALIDATION_ERROR or NOT_FOUND;
	// empty when the answer was not an error envelope (a proxy's page).
	Code string
	// Message is localized after WithLanguage (D10).
	Message string
	// Field and Reason come from details of a validation error: the JSON
	// path of the field (such as to[2]) and a word such as required.
	Field  string
	Reason string
	// Details is the envelope's details object, whole.
	Details map[string]any
	// RequestID is the X-Request-Id of the answer: quote it to the
	// operator, it is in the server's logs.
	RequestID string
	// RetryAfter is the Retry-After header in seconds, 0 when absent.
	RetryAfter int
}

// Error codes of the API (D11) a program is likely to act on.
const (
	CodeInvalidJSON          = "INVALID_JSON"
	CodeValidation           = "VALIDATION_ERROR"
	CodeMissingAPIKey        = "MISSING_API_KEY"
	CodeInvalidAPIKey        = "INVALID_API_KEY"
	CodeForbidden            = "FORBIDDEN"
	CodeReauthRequired       = "REAUTH_REQUIRED"
	CodeReauthFailed         = "REAUTH_FAILED"
	CodeDomainNotVerified    = "DOMAIN_NOT_VERIFIED"
	CodeNotFound             = "NOT_FOUND"
	CodeConflict             = "CONFLICT"
	CodeInvalidState         = "INVALID_STATE"
	CodeIdempotencyKeyReused = "IDEMPOTENCY_KEY_REUSED"
	CodeTokenExpired         = "TOKEN_EXPIRED"
	CodePayloadTooLarge      = "PAYLOAD_TOO_LARGE"
	CodeRateLimitExceeded    = "RATE_LIMIT_EXCEEDED"
	CodeWarmupQuotaExceeded  = "WARMUP_QUOTA_EXCEEDED"
	CodeInternal             = "INTERNAL_ERROR"
	CodeServiceUnavailable   = "SERVICE_UNAVAILABLE"
	CodeTemplateRender       = "TEMPLATE_RENDER_ERROR"
	CodeTemplateSyntax       = "TEMPLATE_SYNTAX_ERROR"
)

func (e *Error) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("carteiro: HTTP %d", e.Status)
	}
	msg := fmt.Sprintf("carteiro: HTTP %d %s: %s", e.Status, e.Code, e.Message)
	if e.Field != "" {
		msg += fmt.Sprintf(" (field %s: %s)", e.Field, e.Reason)
	}
	if e.RequestID != "" {
		msg += " [request " + e.RequestID + "]"
	}
	return msg
}

// newError reads the envelope of a non-2xx answer; a body that is not one
// still gives an Error with the status.
func newError(resp *http.Response, body []byte) *Error {
	e := &Error{Status: resp.StatusCode, RequestID: resp.Header.Get("X-Request-Id")}
	e.RetryAfter, _ = retryAfterSeconds(resp.Header.Get("Retry-After"))
	var envelope struct {
		Error struct {
			Code    string         `json:"code"`
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &envelope) != nil {
		return e
	}
	e.Code, e.Message, e.Details = envelope.Error.Code, envelope.Error.Message, envelope.Error.Details
	e.Field, _ = e.Details["field"].(string)
	e.Reason, _ = e.Details["reason"].(string)
	return e
}
