package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/carteiro/carteiro"
)

// Secret rules of D48.
const (
	// SecretPrefix starts every secret the service generates.
	SecretPrefix = "whsec_"
	// MinSecretLength and MaxSecretLength bound a secret given by a user.
	MinSecretLength = 16
	MaxSecretLength = 256
	// secretRandomLength is the number of base62 characters after the prefix.
	secretRandomLength = 32
	// secretPreviewLength is how much of a secret SecretPreview shows: the
	// prefix and three characters, enough to tell two secrets apart in a
	// dashboard and far too little to guess the rest.
	secretPreviewLength = 9
)

// Sign is X-Service-Signature (D48): the lowercase hex HMAC-SHA256 of the raw
// body keyed with the secret.
func Sign(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

// SignV2 is X-Service-Signature-V2 (D48): "t=<ts>,v1=<hex>", where hex is the
// HMAC-SHA256 of "<ts>.<raw body>". Binding the timestamp into the MAC lets
// receivers refuse replays of an old request.
func SignV2(secret string, ts int64, body []byte) string {
	stamp := strconv.FormatInt(ts, 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(stamp))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "t=" + stamp + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// NewSecret returns a fresh secret as rotate-secret hands out (D48):
// "whsec_" and 32 base62 characters from crypto/rand (about 190 bits).
func NewSecret() string {
	return SecretPrefix + carteiro.RandomBase62(secretRandomLength)
}

// SecretPreview is the truncated form shown by GET and PUT (D52), such as
// "whsec_AbC…". A secret too short to hide anything shows only "…", and no
// secret shows "".
func SecretPreview(secret string) string {
	if secret == "" {
		return ""
	}
	if len(secret) <= secretPreviewLength {
		// Showing 9 of at most 9 characters would reveal the whole secret;
		// ValidSecret refuses such secrets anyway.
		return "…"
	}
	if !strings.HasPrefix(secret, SecretPrefix) {
		// A secret of the customer's own: show only enough to recognise it.
		return secret[:4] + "…"
	}
	return secret[:secretPreviewLength] + "…"
}

// ValidSecret reports whether s may be used as a webhook secret (D48): 16 to
// 256 characters, each printable ASCII (space to tilde). The ASCII rule keeps
// the HMAC key identical whatever language the receiver verifies in.
func ValidSecret(s string) bool {
	if len(s) < MinSecretLength || len(s) > MaxSecretLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
