package i18n

import "github.com/carteiro/carteiro"

// Codes lists every error code (carteiro.Code*) the catalogs must translate.
// A test compares it with the constants declared in error.go, so a new code
// cannot ship without its messages.
func Codes() []string {
	return []string{
		carteiro.CodeInvalidJSON,
		carteiro.CodeValidation,
		carteiro.CodeMissingAPIKey,
		carteiro.CodeInvalidAPIKey,
		carteiro.CodeUnauthorized,
		carteiro.CodeForbidden,
		carteiro.CodeReauthRequired,
		carteiro.CodeReauthFailed,
		carteiro.CodeDomainNotVerified,
		carteiro.CodeNotFound,
		carteiro.CodeRouteNotFound,
		carteiro.CodeMethodNotAllowed,
		carteiro.CodeConflict,
		carteiro.CodeInvalidState,
		carteiro.CodeIdempotencyReused,
		carteiro.CodeTokenExpired,
		carteiro.CodePayloadTooLarge,
		carteiro.CodeRateLimited,
		carteiro.CodeWarmupQuotaExceeded,
		carteiro.CodeInternal,
		carteiro.CodeServiceUnavailable,
		carteiro.CodeTemplateRenderError,
		carteiro.CodeTemplateSyntaxError,
	}
}

// Reasons lists the VALIDATION_ERROR reasons (carteiro.Error.Reason) that have
// a message of their own; any other reason gets the generic "field is
// invalid" message.
func Reasons() []string {
	return []string{
		"required",
		"invalid_type",
		"unknown_field",
		"invalid_value",
		"invalid_email",
		"invalid_domain",
		"invalid_url",
		"host_not_resolvable",
		"invalid_uuid",
		"invalid_date",
		"too_long",
		"too_short",
		"too_many",
		"too_large",
		"out_of_range",
		"not_allowed",
		"invalid_base64",
		"duplicate",
		"inactive",
		"not_supported",
		"header_injection",
		"reserved_header",
		"in_the_past",
		"too_far_ahead",
		"empty",
	}
}
