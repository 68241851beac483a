// Package webhook verifies the requests Carteiro sends to a webhook
// endpoint, and signs requests the same way (for relays and tests).
//
// Every delivery carries two signatures of the same raw body:
//
//   - Standard Webhooks (D76): webhook-id, webhook-timestamp and
//     webhook-signature "v1,<base64 HMAC-SHA256 of id.timestamp.body>",
//     keyed with the bytes the base64 after "whsec_" encodes when the secret
//     has that form (every secret rotate-secret makes), else with the
//     secret's own bytes;
//   - Carteiro's own (D48): X-Service-Timestamp, X-Service-Signature (hex
//     HMAC-SHA256 of the body) and X-Service-Signature-V2
//     "t=<timestamp>,v1=<hex HMAC-SHA256 of timestamp.body>", keyed with the
//     secret's bytes.
//
// Verify checks whichever the request carries, preferring Standard
// Webhooks, and refuses timestamps more than 5 minutes from the clock.
// Always verify the raw body, before parsing it.
package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Header names of both schemes.
const (
	HeaderID          = "webhook-id"
	HeaderTimestamp   = "webhook-timestamp"
	HeaderSignature   = "webhook-signature"
	HeaderEventID     = "X-Service-Event-Id"
	HeaderServiceTime = "X-Service-Timestamp"
	HeaderSignatureV1 = "X-Service-Signature"
	HeaderSignatureV2 = "X-Service-Signature-V2"
)

// DefaultTolerance is how far a timestamp may be from the clock.
const DefaultTolerance = 5 * time.Minute

// secretPrefix marks a secret whose key is the base64 that follows (D76).
const secretPrefix = "whsec_"

// Errors Verify returns; wrapped with detail, test them with errors.Is.
var (
	ErrNoSignature        = errors.New("webhook: the request carries no signature")
	ErrInvalidSignature   = errors.New("webhook: no signature matches")
	ErrInvalidTimestamp   = errors.New("webhook: missing or malformed timestamp")
	ErrTimestampTolerance = errors.New("webhook: timestamp outside the tolerance")
)

// Event is the JSON body of a delivery (D47). Data holds the email's
// fields (emailId, from, to, subject, tags) and the event's metadata; for
// an email.received event (D75), the received message's: inboundEmailId,
// from, to, cc, subject, text, html, attachments, spf, dkim, dmarc,
// inReplyToEmailId (and truncated when text or html were cut at 256 KB).
type Event struct {
	ID        string         `json:"id"`
	Type      string         `json:"type"`
	CreatedAt time.Time      `json:"createdAt"`
	Data      map[string]any `json:"data"`
}

// Verifier checks requests signed with one secret.
type Verifier struct {
	secret    string
	tolerance time.Duration
	now       func() time.Time
}

// Option configures a Verifier.
type Option func(*Verifier)

// WithTolerance replaces DefaultTolerance.
func WithTolerance(d time.Duration) Option { return func(v *Verifier) { v.tolerance = d } }

// WithClock sets the clock timestamps are compared with (tests).
func WithClock(now func() time.Time) Option { return func(v *Verifier) { v.now = now } }

// NewVerifier returns a Verifier for the webhook's secret, as given at
// creation or returned by rotate-secret.
func NewVerifier(secret string, opts ...Option) *Verifier {
	v := &Verifier{secret: secret, tolerance: DefaultTolerance, now: time.Now}
	for _, o := range opts {
		o(v)
	}
	return v
}

// Verify checks body and header against secret with the default
// tolerance: see Verifier.Verify.
func Verify(body []byte, header http.Header, secret string) error {
	return NewVerifier(secret).Verify(body, header)
}

// ConstructEvent verifies the request and decodes its body.
func ConstructEvent(body []byte, header http.Header, secret string) (*Event, error) {
	return NewVerifier(secret).ConstructEvent(body, header)
}

// ConstructEvent verifies the request and decodes its body.
func (v *Verifier) ConstructEvent(body []byte, header http.Header) (*Event, error) {
	if err := v.Verify(body, header); err != nil {
		return nil, err
	}
	var e Event
	if err := json.Unmarshal(body, &e); err != nil {
		return nil, fmt.Errorf("webhook: decode the event: %w", err)
	}
	return &e, nil
}

// Verify checks the request's Standard Webhooks signature when it has one,
// else its X-Service-Signature-V2. The body-only X-Service-Signature is not
// enough on its own: without a timestamp a captured request could be
// replayed forever.
func (v *Verifier) Verify(body []byte, header http.Header) error {
	switch {
	case header.Get(HeaderSignature) != "":
		return v.VerifyStandard(body, header)
	case header.Get(HeaderSignatureV2) != "":
		return v.VerifyService(body, header)
	default:
		return ErrNoSignature
	}
}

// VerifyStandard checks webhook-signature (D76). The header may hold
// several space-separated signatures (during a key rotation); one match is
// enough.
func (v *Verifier) VerifyStandard(body []byte, header http.Header) error {
	id, stamp := header.Get(HeaderID), header.Get(HeaderTimestamp)
	if id == "" {
		return fmt.Errorf("%w: no %s", ErrNoSignature, HeaderID)
	}
	ts, err := v.checkTimestamp(stamp)
	if err != nil {
		return err
	}
	want := standardMAC(v.secret, id, ts, body)
	for _, sig := range strings.Fields(header.Get(HeaderSignature)) {
		version, value, ok := strings.Cut(sig, ",")
		if !ok || version != "v1" {
			continue
		}
		given, err := base64.StdEncoding.DecodeString(value)
		if err == nil && hmac.Equal(given, want) {
			return nil
		}
	}
	return ErrInvalidSignature
}

// VerifyService checks X-Service-Signature-V2 (D48).
func (v *Verifier) VerifyService(body []byte, header http.Header) error {
	var stamp, sig string
	for part := range strings.SplitSeq(header.Get(HeaderSignatureV2), ",") {
		k, val, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			stamp = val
		case "v1":
			sig = val
		}
	}
	ts, err := v.checkTimestamp(stamp)
	if err != nil {
		return err
	}
	given, err := hex.DecodeString(sig)
	if err != nil || !hmac.Equal(given, serviceMAC(v.secret, strconv.FormatInt(ts, 10)+".", body)) {
		return ErrInvalidSignature
	}
	return nil
}

// checkTimestamp parses Unix seconds and checks them against the clock.
func (v *Verifier) checkTimestamp(stamp string) (int64, error) {
	ts, err := strconv.ParseInt(stamp, 10, 64)
	if err != nil {
		return 0, ErrInvalidTimestamp
	}
	if d := v.now().Sub(time.Unix(ts, 0)); d > v.tolerance || d < -v.tolerance {
		return 0, fmt.Errorf("%w: %s from now", ErrTimestampTolerance, d.Round(time.Second))
	}
	return ts, nil
}

// Sign returns the headers Carteiro would send with body: both schemes,
// for event id at time ts. A relay that forwards events to a local app
// (carteiro webhook listen) signs with it, so the app's verification code
// is the one it runs in production.
func Sign(secret, id string, ts time.Time, body []byte) http.Header {
	unix := ts.Unix()
	stamp := strconv.FormatInt(unix, 10)
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set(HeaderEventID, id)
	h.Set(HeaderServiceTime, stamp)
	h.Set(HeaderSignatureV1, hex.EncodeToString(serviceMAC(secret, "", body)))
	h.Set(HeaderSignatureV2, "t="+stamp+",v1="+hex.EncodeToString(serviceMAC(secret, stamp+".", body)))
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, stamp)
	h.Set(HeaderSignature, "v1,"+base64.StdEncoding.EncodeToString(standardMAC(secret, id, unix, body)))
	return h
}

// serviceMAC is the D48 HMAC of prefix and body, keyed with the secret's
// bytes.
func serviceMAC(secret, prefix string, body []byte) []byte {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(prefix))
	mac.Write(body)
	return mac.Sum(nil)
}

// standardMAC is the D76 HMAC of "id.ts.body".
func standardMAC(secret, id string, ts int64, body []byte) []byte {
	mac := hmac.New(sha256.New, StandardKey(secret))
	mac.Write([]byte(id + "." + strconv.FormatInt(ts, 10) + "."))
	mac.Write(body)
	return mac.Sum(nil)
}

// StandardKey is the HMAC key of webhook-signature for a secret (D76): the
// bytes the base64 after "whsec_" encodes, or the secret's own bytes when it
// has no such form. The official Standard Webhooks libraries take the same
// key (NewWebhook for the first, NewWebhookRaw for the second).
func StandardKey(secret string) []byte {
	if rest, ok := strings.CutPrefix(secret, secretPrefix); ok {
		if key, err := base64.StdEncoding.DecodeString(rest); err == nil && len(key) > 0 {
			return key
		}
	}
	return []byte(secret)
}
