package bounce

import "errors"

// Class is what a report says happened to one recipient. The bounce classes
// map to D26's bounceType and, through D46, to the automatic suppressions.
type Class string

// The classes a RecipientReport can carry. A recipient whose outcome cannot
// be told has the empty Class.
const (
	// ClassHard is a permanent failure caused by the address (D69:
	// mailbox_not_found for X.1.1, X.1.10, X.2.1 and X.1.6, bounce
	// otherwise).
	ClassHard Class = "hard"
	// ClassSoft is a final failure of this message that says nothing
	// permanent about the address: a full mailbox, a message too large, a
	// temporary error that the remote MTA gave up retrying.
	ClassSoft Class = "soft"
	// ClassBlock is a refusal by the receiving provider for policy,
	// reputation or spam reasons, blocklists included (5.7.x other than
	// the sender's authentication, and similar wording; D69: isp_block).
	ClassBlock Class = "block"
	// ClassSender is a permanent refusal that blames the sending side's
	// configuration (D69): a refused HELO or other protocol error (X.5.x),
	// failed sender authentication (SPF, DKIM, DMARC, PTR; X.7.20 to
	// X.7.27), a refused sender address (X.1.7, X.1.8), the receiving mail
	// system or routing (X.3.x, X.4.x). The recipient fails; nothing is
	// suppressed, and Cause names what to fix.
	ClassSender Class = "sender"
	// ClassDelayed is a temporary failure that is still being retried.
	ClassDelayed Class = "delayed"
	// ClassDelivered is a success DSN (D25: confirms delivery via a relay).
	ClassDelivered Class = "delivered"
	// ClassComplaint is a recipient's abuse report (ARF).
	ClassComplaint Class = "complaint"
)

// Report kinds.
const (
	// KindDSN is a delivery status notification (RFC 3464).
	KindDSN = "dsn"
	// KindARF is an abuse feedback report (RFC 5965).
	KindARF = "arf"
	// KindPlain is a non-standard, human-readable bounce.
	KindPlain = "plain"
)

// Bounds on the work Parse does for one message, so that hostile or broken
// input costs bounded time and memory.
const (
	// MaxInputSize is how much of the raw message Parse reads; the rest is
	// ignored. Reports put their machine-readable part before the returned
	// original, so a long original costs nothing but its tail.
	MaxInputSize = 10 << 20
	// MaxParts is how many MIME parts (at any depth) Parse looks at.
	MaxParts = 100
	// maxDepth bounds MIME nesting (multipart in message/rfc822 in ...).
	maxDepth = 8
	// maxTextScan bounds the text searched by the plain-bounce heuristics;
	// the diagnostic of a human-readable bounce sits near its top.
	maxTextScan = 1 << 20
	// maxRecipients bounds the recipients of one report; Carteiro never
	// sends one message to nearly as many.
	maxRecipients = 1000
	// maxDiagnostic bounds RecipientReport.Diagnostic, which ends up in
	// timeline metadata (D26).
	maxDiagnostic = 2000
)

// ErrNotABounce is returned by Parse for a message that is neither a bounce
// nor a complaint (an auto-reply, a person's answer, garbage).
var ErrNotABounce = errors.New("bounce: not a bounce or complaint report")

// RecipientReport is what a report says about one recipient.
type RecipientReport struct {
	// Recipient is the Final-Recipient address (the Original-Recipient
	// when there is no Final-Recipient), lowercased, without its
	// "rfc822;" address type. For ARF it is the complaining recipient; for
	// plain bounces the address the bounce names.
	Recipient string
	// OriginalRecipient is the DSN Original-Recipient address, lowercased.
	// Carteiro sends ORCPT, so this is the address it sent to even when
	// the message was forwarded and Final-Recipient names another one;
	// match on it first when it is set. Empty when absent.
	OriginalRecipient string
	// Action is the DSN Action (failed, delayed, delivered, relayed,
	// expanded), lowercased; empty for ARF and plain bounces.
	Action string
	// Status is the enhanced status code ("5.1.1"), empty when none found.
	Status string
	// Code is the basic SMTP reply code (550) found in the diagnostic, 0
	// when none.
	Code int
	// Diagnostic is the remote server's reply (the Diagnostic-Code without
	// its "smtp;" type, or the reply quoted in a plain bounce), unfolded,
	// at most about 2000 bytes.
	Diagnostic string
	// Class is the outcome; see Classify.
	Class Class
	// Guessed marks an ARF recipient that the report did not name: with no
	// Original-Rcpt-To it is taken from the To header of the returned
	// original, which names the visible recipients, not necessarily the
	// one who complained (a Bcc recipient, say). D65 lets no guessed
	// address decide which recipient a report is about.
	Guessed bool
}

// Report is a parsed bounce or complaint.
type Report struct {
	// Kind is KindDSN, KindARF or KindPlain.
	Kind string
	// Recipients has one entry per recipient the report names, in order.
	// An ARF report whose original is redacted may have none; match it
	// with OriginalMessageID or OriginalMailFrom.
	Recipients []RecipientReport
	// OriginalMessageID is the Message-ID of the message that bounced or
	// was reported, without angle brackets, taken from the returned
	// original (message/rfc822, text/rfc822-headers or the headers quoted
	// in a plain bounce); when no original is returned, from the DSN's
	// X-Original-Message-ID (Gmail) or the bounce's own In-Reply-To.
	// Never from Original-Envelope-Id. Empty when none of these is there.
	OriginalMessageID string
	// OriginalEnvelopeID is the DSN Original-Envelope-Id (Carteiro sends
	// the email id as ENVID); empty otherwise.
	OriginalEnvelopeID string
	// FeedbackType is the ARF Feedback-Type (abuse, fraud, virus, other,
	// not-spam, ...), lowercased; empty otherwise.
	FeedbackType string
	// OriginalMailFrom is the ARF Original-Mail-From (falling back to the
	// Return-Path of the attached original), without angle brackets and
	// with its case kept, since it carries Carteiro's bounce token. Empty
	// for DSN and plain bounces, which arrive at that address anyway.
	OriginalMailFrom string
	// ReturnPaths are the addresses where D65's per-recipient token may be
	// found besides the envelope recipient: the Return-Path of the report
	// itself, the Return-Path of the returned original, and the ARF
	// Original-Mail-From; in that order, without duplicates or empties.
	ReturnPaths []string
}
