package secrets

import (
	"crypto/hmac"
	"encoding/base32"
	"strings"
)

// compactMACLength is the truncated HMAC of a compact token: 96 bits keep
// forgery out of reach (each guess costs an email to the bounce host) while
// a return path's local part stays within 64 octets (D65).
const compactMACLength = 12

// compactEncoding is unpadded lowercase base32 (RFC 4648 alphabet): letters
// and digits only, so a token survives an MTA that changes the case of a
// local part, and needs no quoting in an address.
var compactEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// SignCompact returns base32(payload || mac) in lowercase, where mac is a
// 96-bit HMAC binding payload to purpose. It is Sign for places that may
// fold case and allow no punctuation: the local part of a return path.
func (b *Box) SignCompact(purpose string, payload []byte) string {
	mac := b.tokenMAC(purpose, payload)[:compactMACLength]
	return compactEncoding.EncodeToString(append(append([]byte{}, payload...), mac...))
}

// VerifyCompact checks a token made by SignCompact for the same purpose, in
// any letter case, and returns its payload. The MAC is compared in constant
// time; a token that is not the one encoding of its bytes is refused, so no
// changed character goes unnoticed.
func (b *Box) VerifyCompact(purpose, token string) ([]byte, bool) {
	token = strings.ToLower(token)
	raw, err := compactEncoding.DecodeString(token)
	if err != nil || len(raw) < compactMACLength || compactEncoding.EncodeToString(raw) != token {
		return nil, false
	}
	payload, mac := raw[:len(raw)-compactMACLength], raw[len(raw)-compactMACLength:]
	if !hmac.Equal(mac, b.tokenMAC(purpose, payload)[:compactMACLength]) {
		return nil, false
	}
	return payload, true
}
