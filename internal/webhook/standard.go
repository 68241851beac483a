package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
)

// Request headers of Standard Webhooks (D76), sent beside those of D48.
const (
	HeaderStandardID        = "webhook-id"
	HeaderStandardTimestamp = "webhook-timestamp"
	HeaderStandardSignature = "webhook-signature"
)

// SignStandard is webhook-signature (D76): "v1," and the standard base64
// HMAC-SHA256 of "<id>.<ts>.<raw body>" keyed with StandardKey(secret), the
// form the official Standard Webhooks libraries verify.
func SignStandard(secret, id string, ts int64, body []byte) string {
	mac := hmac.New(sha256.New, StandardKey(secret))
	mac.Write([]byte(id))
	mac.Write([]byte{'.'})
	mac.Write([]byte(strconv.FormatInt(ts, 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// StandardKey is the HMAC key of D76. A secret "whsec_<base64>" means the
// bytes the base64 encodes, as the official libraries read it: every secret
// the service generates has that form (32 base62 characters are valid
// base64 of 24 bytes). Any other secret, including a customer's own that
// starts with whsec_ but is not valid base64, is used byte for byte; its
// receiver verifies with the libraries' raw-key constructor.
//
// The decoding is Go's base64.StdEncoding, the same the official Go library
// uses, so the two agree on every secret that library accepts.
func StandardKey(secret string) []byte {
	if rest, ok := strings.CutPrefix(secret, SecretPrefix); ok {
		if key, err := base64.StdEncoding.DecodeString(rest); err == nil && len(key) > 0 {
			return key
		}
	}
	return []byte(secret)
}
