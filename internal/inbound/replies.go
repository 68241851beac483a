package inbound

import (
	"fmt"

	"github.com/emersion/go-smtp"
)

// The replies this listener gives on its own behalf. Enhanced status codes
// follow RFC 3463; 4xx ones make the client keep the message and retry.
var (
	// errRateLimited answers MAIL from a client over its per-IP rate.
	errRateLimited = &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 7, 0},
		Message: "Too many messages from your address, try again later"}
	// errNotOurDomain answers RCPT for a domain the handler does not serve.
	errNotOurDomain = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1},
		Message: "No such recipient here"}
	// errBadAddress answers RCPT with an address that cannot be a mailbox.
	errBadAddress = &smtp.SMTPError{Code: 501, EnhancedCode: smtp.EnhancedCode{5, 1, 3},
		Message: "Bad recipient address syntax"}
	// errTooLarge answers a message (or a declared SIZE) over the cap.
	errTooLarge = &smtp.SMTPError{Code: 552, EnhancedCode: smtp.EnhancedCode{5, 3, 4},
		Message: "Message too big"}
	// errDeliverFailed answers DATA when the handler could not take the
	// message; the sender keeps it and retries, so nothing is lost.
	errDeliverFailed = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0},
		Message: "Temporary failure, try again later"}
	// errNoTransaction answers RCPT or DATA without an accepted MAIL (or
	// DATA without an accepted RCPT).
	errNoTransaction = &smtp.SMTPError{Code: 503, EnhancedCode: smtp.EnhancedCode{5, 5, 1},
		Message: "Need an accepted MAIL and RCPT first"}
	// errShuttingDown answers commands that arrive while the server closes.
	errShuttingDown = &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 3, 2},
		Message: "Service shutting down, try again later"}
)

// tooManyRecipients answers RCPT past the cap. 452 (not 5xx) is what RFC
// 5321 (4.5.3.1.10) asks for: the client sends the rest in a later
// transaction.
func tooManyRecipients(limit int) *smtp.SMTPError {
	return &smtp.SMTPError{Code: 452, EnhancedCode: smtp.EnhancedCode{4, 5, 3},
		Message: fmt.Sprintf("Too many recipients, at most %d per message", limit)}
}
