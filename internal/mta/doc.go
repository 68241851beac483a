// Package mta turns an accepted email into bytes on the wire: it builds the
// RFC 5322 / MIME message (Build), signs it with DKIM (DKIMSigner), and hands
// it to an SMTP server, either a relay smarthost (Relay) or the recipients'
// own mail exchangers (Direct), as D3 lets the operator choose. Every
// delivery answers one Result per recipient, classified as accepted,
// temporary, permanent or block (Classify), which internal/app turns into
// the statuses and timeline events of D23 to D26.
//
// Two choices of dependency are deliberate:
//
//   - MIME is built with the standard library (mime, mime/quotedprintable,
//     encoding/base64) rather than github.com/wneessen/go-mail. The message
//     layout is small and fixed, and owning it means we control exactly what
//     is emitted: CRLF only, folded headers, no bare CR or LF anywhere (SMTP
//     smuggling), RFC 2231 continuations for long non-ASCII filenames, and a
//     build that costs microseconds next to the millisecond of RSA signing.
//   - The SMTP client is written here on top of net/textproto-style framing
//     rather than go-smtp's client: go-smtp cannot send a chosen EHLO name
//     before STARTTLS, performs the TLS handshake lazily (so a failed
//     handshake cannot be told apart from other errors, which Direct needs
//     to retry without TLS), hides the exact 2xx reply codes, and does not
//     pipeline RSET, MAIL, RCPT and DATA in one group (RFC 2920), as this
//     client does when the server offers PIPELINING (pipeline.go). go-smtp
//     remains the test server.
package mta
