// Package tracking holds the pure part of open and click tracking (D53,
// contract 2.1 openedAt/firstClickedAt/openCount/clickCount): signed tokens
// for the pixel and click-redirect URLs, the tracking pixel itself, and the
// rewriting of an HTML body so opens and clicks reach the service. Recording
// the events and serving /t/o and /t/c live elsewhere.
package tracking

import (
	"encoding/binary"
)

// Signer makes and checks compact HMAC-signed, URL-safe tokens bound to a
// purpose. *secrets.Box satisfies it.
type Signer interface {
	Sign(purpose string, payload []byte) string
	Verify(purpose, token string) ([]byte, bool)
}

// Token purposes. Distinct purposes keep an open token from being replayed
// as a click token and the other way round (D53).
const (
	openPurpose  = "open"
	clickPurpose = "click"
)

// OpenToken returns the token of the open pixel of an email: it carries the
// email id.
func OpenToken(s Signer, emailID string) string {
	return s.Sign(openPurpose, []byte(emailID))
}

// ParseOpen checks an open token and returns its email id. A forged or
// altered token, or one made for another purpose, is refused.
func ParseOpen(s Signer, token string) (emailID string, ok bool) {
	payload, ok := s.Verify(openPurpose, token)
	if !ok || len(payload) == 0 {
		return "", false
	}
	return string(payload), true
}

// ClickToken returns the token of a click redirect: it carries the email id
// and the exact destination URL. It signs whatever it is given; ParseClick
// is the gate that accepts only http and https destinations.
func ClickToken(s Signer, emailID, url string) string {
	return s.Sign(clickPurpose, clickPayload(emailID, url))
}

// ParseClick checks a click token and returns its email id and destination.
// Besides forged, altered and cross-purpose tokens, it refuses any
// destination that is not an absolute http or https URL, so even a signed
// javascript: or data: URL never becomes a redirect.
func ParseClick(s Signer, token string) (emailID, url string, ok bool) {
	payload, ok := s.Verify(clickPurpose, token)
	if !ok {
		return "", "", false
	}
	emailID, url, ok = splitClickPayload(payload)
	if !ok || emailID == "" || !validDestination(url) {
		return "", "", false
	}
	return emailID, url, true
}

// clickPayload is uvarint(len(emailID)) || emailID || url. The length prefix
// keeps the split unambiguous whatever bytes either part holds.
func clickPayload(emailID, url string) []byte {
	b := make([]byte, 0, binary.MaxVarintLen64+len(emailID)+len(url))
	b = binary.AppendUvarint(b, uint64(len(emailID)))
	b = append(b, emailID...)
	return append(b, url...)
}

// splitClickPayload reverses clickPayload.
func splitClickPayload(payload []byte) (emailID, url string, ok bool) {
	n, size := binary.Uvarint(payload)
	if size <= 0 || n > uint64(len(payload)-size) {
		return "", "", false
	}
	rest := payload[size:]
	return string(rest[:n]), string(rest[n:]), true
}
