package webhook_test

import (
	"errors"
	"testing"
	"time"

	"github.com/carteiro/carteiro/sdk/go/carteiro/webhook"
)

// Known answers: the signatures of a fixed request, computed independently
// (openssl dgst -sha256 -hmac / -macopt hexkey), so Sign and Verify cannot
// agree on a wrong algorithm.
func TestSignKnownAnswers(t *testing.T) {
	body := []byte(`{"id":"evt_1","type":"email.sent"}`)
	ts := time.Unix(1767322800, 0)
	h := webhook.Sign("s3cret-s3cret-s3cret", "evt_1", ts, body)
	if got := h.Get(webhook.HeaderSignatureV1); got != knownV1 {
		t.Errorf("X-Service-Signature %s, want %s", got, knownV1)
	}
	if got := h.Get(webhook.HeaderSignatureV2); got != "t=1767322800,v1="+knownV2 {
		t.Errorf("X-Service-Signature-V2 %s", got)
	}
	if got := h.Get(webhook.HeaderSignature); got != "v1,"+knownStandardRaw {
		t.Errorf("webhook-signature (raw key) %s", got)
	}
	// whsec_ + base64: keyed with the decoded bytes (D76).
	h = webhook.Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "evt_1", ts, body)
	if got := h.Get(webhook.HeaderSignature); got != "v1,"+knownStandardWhsec {
		t.Errorf("webhook-signature (whsec key) %s", got)
	}
}

func TestVerify(t *testing.T) {
	body := []byte(`{"id":"evt_1","type":"email.delivered","createdAt":"2026-11-27T10:00:00Z","data":{"emailId":"e"}}`)
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	now := time.Now()
	h := webhook.Sign(secret, "evt_1", now, body)
	if err := webhook.Verify(body, h, secret); err != nil {
		t.Fatalf("both schemes: %v", err)
	}
	ev, err := webhook.ConstructEvent(body, h, secret)
	if err != nil || ev.ID != "evt_1" || ev.Type != "email.delivered" || ev.Data["emailId"] != "e" {
		t.Fatalf("event %+v %v", ev, err)
	}
	// Only the D48 headers: V2 is checked.
	d48 := h.Clone()
	d48.Del(webhook.HeaderSignature)
	if err := webhook.Verify(body, d48, secret); err != nil {
		t.Fatalf("D48 only: %v", err)
	}
	// One changed body byte fails either scheme.
	tampered := append([]byte(nil), body...)
	tampered[10] ^= 1
	for name, hdr := range map[string]map[string][]string{"standard": h, "d48": d48} {
		if err := webhook.Verify(tampered, hdr, secret); !errors.Is(err, webhook.ErrInvalidSignature) {
			t.Errorf("%s: tampered body: %v", name, err)
		}
		if err := webhook.Verify(body, hdr, "another-secret-0000"); !errors.Is(err, webhook.ErrInvalidSignature) {
			t.Errorf("%s: wrong secret: %v", name, err)
		}
	}
	// V1 alone is refused: it carries no timestamp.
	v1 := h.Clone()
	v1.Del(webhook.HeaderSignature)
	v1.Del(webhook.HeaderSignatureV2)
	if err := webhook.Verify(body, v1, secret); !errors.Is(err, webhook.ErrNoSignature) {
		t.Errorf("V1 only: %v", err)
	}
	// Old requests are refused.
	old := webhook.Sign(secret, "evt_1", now.Add(-6*time.Minute), body)
	if err := webhook.Verify(body, old, secret); !errors.Is(err, webhook.ErrTimestampTolerance) {
		t.Errorf("6 minutes old: %v", err)
	}
	v := webhook.NewVerifier(secret, webhook.WithTolerance(10*time.Minute))
	if err := v.Verify(body, old); err != nil {
		t.Errorf("6 minutes old with a 10 minute tolerance: %v", err)
	}
}

// Computed with openssl (see TestSignKnownAnswers).
const (
	knownV1            = "f75ff6e685925eabe9a30ea7ec063e1dfbaf54eefd08151473725761102971b3"
	knownV2            = "953dd9ad3f9fa6db60bf9e04e9e69056b77a5780e03c41856c5fb98c419cd73a"
	knownStandardRaw   = "EZA9rqSHzp2Hze8ALfELdQvhOKAomaK0pAzDaE4YE/Q="
	knownStandardWhsec = "uwuwKeNu4pGnR0uKPS4bbM5QO+nFLQON0PMPFXyuY/s="
)
