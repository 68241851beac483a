package mta

import (
	"strconv"
	"strings"
	"time"
)

// Class is what a delivery outcome means for one recipient (D23, D46).
type Class string

const (
	// ClassAccepted: the server took responsibility (2xx).
	ClassAccepted Class = "accepted"
	// ClassTemporary: try again later (4xx, or no usable answer at all:
	// DNS, connection and timeout failures).
	ClassTemporary Class = "temporary"
	// ClassPermanent: a hard bounce (5xx other than policy).
	ClassPermanent Class = "permanent"
	// ClassBlock: a policy rejection (5xx with enhanced code 5.7.x), which
	// D46 turns into a time-limited isp_block suppression.
	ClassBlock Class = "block"
)

// Result is the outcome of one delivery attempt for one recipient.
type Result struct {
	// Recipient is the envelope address, as given in Envelope.Recipients.
	Recipient string
	Class     Class
	// Code is the SMTP reply code that decided the outcome, or 0 when no
	// reply applies (DNS or connection failure, a local refusal).
	Code int
	// Enhanced is the RFC 3463 code ("5.1.1"): the server's when it sent
	// one, else one derived from Code ("5.0.0"), or one describing a
	// failure without reply ("4.4.1" no answer, "4.4.2" connection lost,
	// "4.4.3" DNS failure).
	Enhanced string
	// Message is the server's reply text, or a description of the failure.
	Message string
	// Host is the server that answered (or was last tried): the MX host
	// name for Direct, the relay's host for Relay (D26 "mx").
	Host string
	// TLS reports whether the transaction ran over TLS.
	TLS bool
	// DSN reports whether a delivery status notification was requested for
	// this recipient (Relay with RequestDSN and a server advertising DSN),
	// so the caller knows whether to wait for one before "delivered" (D25).
	DSN bool
	// RetryAt, when set on a temporary outcome, is when trying again can
	// succeed: the end of its destination's hold (D80).
	RetryAt time.Time
}

// Summary renders the outcome as an SMTP reply line ("550 5.1.1 No such
// user"), or the message alone when there was no reply; the form kept in
// an email's lastError (D23).
func (r Result) Summary() string {
	if r.Code == 0 {
		return r.Message
	}
	parts := []string{strconv.Itoa(r.Code)}
	if r.Enhanced != "" {
		parts = append(parts, r.Enhanced)
	}
	if r.Message != "" {
		parts = append(parts, r.Message)
	}
	return strings.Join(parts, " ")
}

// Classify maps an SMTP reply to a Class: 2xx accepted, 4xx temporary, 5xx
// block when the enhanced code is 5.7.x (security or policy status, RFC
// 3463), else permanent. Without a usable basic code the enhanced code's
// class decides; anything unrecognisable is temporary, the answer that never
// loses mail.
func Classify(code int, enhanced string) Class {
	class := code / 100
	if code == 0 && len(enhanced) > 0 {
		class = int(enhanced[0] - '0')
	}
	switch class {
	case 2:
		return ClassAccepted
	case 4:
		return ClassTemporary
	case 5:
		if strings.HasPrefix(enhanced, "5.7.") {
			return ClassBlock
		}
		return ClassPermanent
	default:
		return ClassTemporary
	}
}

// derivedEnhanced is the enhanced code implied by a basic code alone
// ("X.0.0", RFC 3463 section 3.1).
func derivedEnhanced(code int) string {
	switch code / 100 {
	case 2, 4, 5:
		return strconv.Itoa(code/100) + ".0.0"
	}
	return ""
}
