package submission

import (
	"errors"
	"fmt"

	"github.com/emersion/go-smtp"

	"github.com/carteiro/carteiro"
)

// reply builds an SMTP error; enhanced codes follow RFC 3463.
func reply(code int, enhanced smtp.EnhancedCode, msg string) *smtp.SMTPError {
	return &smtp.SMTPError{Code: code, EnhancedCode: enhanced, Message: msg}
}

// The replies of D74, and the protocol ones around them.
var (
	errBadKey = reply(535, smtp.EnhancedCode{5, 7, 8},
		"Authentication failed: the password must be a valid Carteiro API key")
	errAuthRateLimited = reply(454, smtp.EnhancedCode{4, 7, 0},
		"Too many failed authentication attempts from your address, try again later")
	errTLSRequired = reply(530, smtp.EnhancedCode{5, 7, 0},
		"Must issue a STARTTLS command first: authentication needs TLS")
	errAuthRequired = reply(530, smtp.EnhancedCode{5, 7, 0},
		"Authentication required: AUTH with an API key as the password")
	errTooManyRecipients = reply(452, smtp.EnhancedCode{4, 5, 3},
		fmt.Sprintf("Too many recipients, at most %d per message", MaxRecipients))
	errTooLarge = reply(552, smtp.EnhancedCode{5, 3, 4},
		"Message too big, at most 40 MB")
	errRateLimited = reply(451, smtp.EnhancedCode{4, 7, 0},
		"Rate limit exceeded for this API key, try again later")
	errWarmupQuota = reply(451, smtp.EnhancedCode{4, 7, 0},
		"Daily warmup quota of the sending domain reached, try again later")
	errTooManyConnections = reply(421, smtp.EnhancedCode{4, 7, 0},
		"Too many connections from your address, try again later")
	errSenderNotVerified = reply(550, smtp.EnhancedCode{5, 7, 1},
		"Sender not verified: From must be on a verified domain or a verified sender")
	errNoTransaction = reply(503, smtp.EnhancedCode{5, 5, 1},
		"Need an accepted MAIL and RCPT first")
	errBadRecipient = reply(501, smtp.EnhancedCode{5, 1, 3},
		"Bad recipient address syntax")
	errTemporary = reply(451, smtp.EnhancedCode{4, 3, 0},
		"Temporary failure, try again later")
)

// unreadable is 554 5.6.0 (D74), saying what is wrong with the message.
func unreadable(why string) *smtp.SMTPError {
	return reply(554, smtp.EnhancedCode{5, 6, 0}, "Message refused: "+why)
}

// refusal maps an error of app.SendEmail to the reply of D74 and the
// reason counted in metrics. Errors that are not the client's fault are a
// 451: the client keeps the message and retries.
func refusal(err error) (*smtp.SMTPError, string) {
	var ce *carteiro.Error
	if !errors.As(err, &ce) {
		return errTemporary, "temporary_failure"
	}
	switch ce.Code {
	case carteiro.CodeDomainNotVerified:
		return errSenderNotVerified, "sender_not_verified"
	case carteiro.CodeForbidden:
		// D8: a domain-restricted key sending from another domain.
		return reply(550, smtp.EnhancedCode{5, 7, 1},
			"Sender not allowed: this API key may only send from its own domain"), "sender_not_allowed"
	case carteiro.CodeWarmupQuotaExceeded:
		return errWarmupQuota, "warmup_quota"
	case carteiro.CodeRateLimited:
		return errRateLimited, "rate_limited"
	case carteiro.CodeInvalidAPIKey:
		return errBadKey, "bad_key"
	case carteiro.CodeIdempotencyReused:
		return reply(554, smtp.EnhancedCode{5, 6, 0},
			"Message refused: X-Carteiro-Idempotency-Key was already used for another message"), "idempotency_key_reused"
	case carteiro.CodeValidation:
		return unreadable(validationText(ce)), "invalid_message"
	case carteiro.CodePayloadTooLarge:
		return errTooLarge, "too_large"
	}
	return errTemporary, "temporary_failure"
}

// validationText names the request field the message's content failed,
// in the words of the contract (the field is the POST /emails one the
// message was mapped to).
func validationText(ce *carteiro.Error) string {
	field := ce.Field
	if field == "" {
		if f, ok := ce.Details["field"].(string); ok {
			field = f
		}
	}
	switch {
	case field != "" && ce.Reason != "":
		return fmt.Sprintf("%s is not acceptable (%s)", field, ce.Reason)
	case field != "":
		return field + " is not acceptable"
	}
	return "its content is not acceptable"
}
