package inbound

import "context"

// Handler decides which recipient domains the listener serves and takes
// the messages it accepts. Both methods are called concurrently, one call
// per SMTP session at a time, with a context that is cancelled when the
// Server closes. The calls of one SMTP transaction (its RCPTs and its
// DATA) share a Memo (MemoFrom), where the handler may keep what RCPT
// learned for DATA.
type Handler interface {
	// AcceptsDomain reports whether mail for this recipient domain is ours:
	// the bounce host, or "bounces.<a registered domain>". Called at RCPT
	// with the domain lowercased, in punycode and without a trailing dot.
	AcceptsDomain(ctx context.Context, domain string) bool
	// Deliver receives one accepted message: the envelope sender ("" for
	// the null sender <>), the accepted recipients (domain normalised as
	// for AcceptsDomain, local part as sent) and the raw bytes, exactly as
	// received with CRLF line endings and dot-stuffing removed. The
	// handler owns both slices. An error makes the server answer 451 (try
	// again later) so nothing is lost.
	Deliver(ctx context.Context, from string, to []string, raw []byte) error
}
