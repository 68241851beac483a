// Package bounce parses the mail that comes back to Carteiro's bounce
// address (D55): delivery status notifications (RFC 3464), abuse feedback
// reports (ARF, RFC 5965) and the plain-text bounces some large providers
// still send. It only reads bytes and returns a Report; matching a report to
// an email, recording the outcome (D23 to D26) and suppressing addresses
// (D46) belong to the caller.
//
// The parser is deliberately lenient: real bounces break the RFCs in many
// small ways (bare LF line endings, malformed headers, wrong encodings), and
// a bounce that cannot be read is an address that keeps being mailed. It is
// also bounded: input beyond MaxInputSize and MIME parts beyond MaxParts are
// ignored, so hostile input costs linear time at most.
package bounce
