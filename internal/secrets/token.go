package secrets

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"strings"
)

// tokenMACLength is the truncated HMAC-SHA256 length: 128 bits keep forgery
// out of reach while keeping tracking URLs short (D53).
const tokenMACLength = 16

// Sign returns base64url(payload) + "." + base64url(mac), where mac binds
// the payload to purpose, so a token minted for one use ("open") is refused
// for another ("click").
func (b *Box) Sign(purpose string, payload []byte) string {
	return tokenEncoding.EncodeToString(payload) + "." + tokenEncoding.EncodeToString(b.tokenMAC(purpose, payload))
}

// Verify checks a token made by Sign for the same purpose and returns its
// payload. The MAC is compared in constant time.
func (b *Box) Verify(purpose string, token string) ([]byte, bool) {
	encodedPayload, encodedMAC, ok := strings.Cut(token, ".")
	if !ok {
		return nil, false
	}
	payload, err := decodeCanonical(encodedPayload)
	if err != nil {
		return nil, false
	}
	mac, err := decodeCanonical(encodedMAC)
	if err != nil || len(mac) != tokenMACLength {
		return nil, false
	}
	if !hmac.Equal(mac, b.tokenMAC(purpose, payload)) {
		return nil, false
	}
	return payload, true
}

// tokenMAC is the truncated HMAC of the length-prefixed purpose followed by
// the payload; the length prefix keeps ("ab", "c") and ("a", "bc") apart.
func (b *Box) tokenMAC(purpose string, payload []byte) []byte {
	h := hmac.New(sha256.New, b.signingKey)
	var length [8]byte
	binary.BigEndian.PutUint64(length[:], uint64(len(purpose)))
	h.Write(length[:])
	h.Write([]byte(purpose))
	h.Write(payload)
	return h.Sum(nil)[:tokenMACLength]
}
