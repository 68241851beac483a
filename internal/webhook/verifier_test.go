package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// This file is a receiver's verification code written from D48 alone, the
// way a customer would write it: it shares nothing with the package, so a
// signing bug cannot be mirrored by the check.

// replayWindow is how old a V2 timestamp may be (D48: 5 minutes).
const replayWindow = 5 * time.Minute

// receiverHMAC computes HMAC-SHA256 of the parts, concatenated, keyed with
// secret.
func receiverHMAC(secret string, parts ...[]byte) []byte {
	mac := hmac.New(sha256.New, []byte(secret))
	for _, p := range parts {
		mac.Write(p)
	}
	return mac.Sum(nil)
}

// verifyV1 checks X-Service-Signature: hex HMAC of the raw body, compared
// in constant time.
func verifyV1(secret string, body []byte, header string) error {
	got, err := hex.DecodeString(header)
	if err != nil {
		return errors.New("v1: signature is not hex")
	}
	if header != strings.ToLower(header) {
		return errors.New("v1: signature is not lower case")
	}
	if !hmac.Equal(got, receiverHMAC(secret, body)) {
		return errors.New("v1: signature mismatch")
	}
	return nil
}

// verifyV2 checks X-Service-Signature-V2 "t=<ts>,v1=<hex>": the MAC of
// "<ts>.<body>", and a timestamp no more than 5 minutes from now.
func verifyV2(secret string, body []byte, header string, now time.Time) error {
	var stamp, sig string
	for _, field := range strings.Split(header, ",") {
		key, value, _ := strings.Cut(strings.TrimSpace(field), "=")
		switch key {
		case "t":
			stamp = value
		case "v1":
			sig = value
		}
	}
	ts, err := strconv.ParseInt(stamp, 10, 64)
	if err != nil {
		return errors.New("v2: no timestamp")
	}
	if age := now.Sub(time.Unix(ts, 0)); age > replayWindow || age < -replayWindow {
		return errors.New("v2: timestamp outside the replay window")
	}
	got, err := hex.DecodeString(sig)
	if err != nil {
		return errors.New("v2: signature is not hex")
	}
	if !hmac.Equal(got, receiverHMAC(secret, []byte(stamp), []byte("."), body)) {
		return errors.New("v2: signature mismatch")
	}
	return nil
}

// verifyRequest applies both checks to the headers and body a receiver got.
func verifyRequest(secret string, h http.Header, body []byte, now time.Time) error {
	if err := verifyV1(secret, body, h.Get("X-Service-Signature")); err != nil {
		return err
	}
	return verifyV2(secret, body, h.Get("X-Service-Signature-V2"), now)
}
