package webhook_test

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/carteiro/carteiro/internal/testutil"
	"github.com/carteiro/carteiro/internal/webhook"
)

// officialVerifier is how a receiver builds the official Go library's
// verifier for secret (D76): from the secret itself when it is whsec_ and
// base64, as the service generates them, else from the secret's raw bytes.
func officialVerifier(t *testing.T, secret string, raw bool) *standardwebhooks.Webhook {
	t.Helper()
	var wh *standardwebhooks.Webhook
	var err error
	if raw {
		wh, err = standardwebhooks.NewWebhookRaw([]byte(secret))
	} else {
		wh, err = standardwebhooks.NewWebhook(secret)
	}
	if err != nil {
		t.Fatalf("standardwebhooks verifier for %q: %v", secret, err)
	}
	return wh
}

// TestD76StandardWebhooksVerifyWithOfficialGoLibrary sends real requests to
// the HTTPS receiver and verifies what arrived with the official Go library
// of the Standard Webhooks project, for each kind of secret.
func TestD76StandardWebhooksVerifyWithOfficialGoLibrary(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		secret string
		raw    bool // the receiver passes the secret's bytes (NewWebhookRaw)
	}{
		{"generated whsec_ secret", webhook.NewSecret(), false},
		{"fixed whsec_ secret", testSecret, false},
		{"customer secret without prefix", "s3cret-s3cret-s3cret", true},
		{"customer whsec_ secret that is not base64", "whsec_not-base64-at-all!", true},
	}
	rcv := testutil.NewTLSReceiver(t, nil)
	client := newClient(t, rcv, webhook.ClientOptions{})
	for i, tc := range cases {
		rcv.Reset()
		eventID := "0190f3a2-0000-7000-8000-00000000000" + strconv.Itoa(i)
		body := []byte(`{"id":"` + eventID + `","type":"email.sent","data":{"subject":"olá"}}`)
		out := client.Send(context.Background(), webhook.Request{
			URL: rcv.URL() + "/hooks", Secret: tc.secret, EventID: eventID, Body: body, Timestamp: time.Now(),
		})
		if !out.Success {
			t.Fatalf("%s: Send = %+v", tc.name, out)
		}
		got := rcv.Requests()[0]
		if got.Header.Get("webhook-id") != eventID {
			t.Errorf("%s: webhook-id = %q, want the event id %q", tc.name, got.Header.Get("webhook-id"), eventID)
		}
		if got.Header.Get("webhook-timestamp") != got.Header.Get(webhook.HeaderTimestamp) {
			t.Errorf("%s: webhook-timestamp %q differs from %s %q", tc.name,
				got.Header.Get("webhook-timestamp"), webhook.HeaderTimestamp, got.Header.Get(webhook.HeaderTimestamp))
		}
		if err := verifyRequest(tc.secret, got.Header, got.Body, time.Now()); err != nil {
			t.Errorf("%s: the D48 signatures no longer verify: %v", tc.name, err)
		}

		wh := officialVerifier(t, tc.secret, tc.raw)
		if err := wh.Verify(got.Body, got.Header); err != nil {
			t.Errorf("%s: official library refuses the delivery: %v (webhook-signature %q)",
				tc.name, err, got.Header.Get("webhook-signature"))
		}
		flipped := bytes.Clone(got.Body)
		flipped[len(flipped)/2] ^= 0x01
		if err := wh.Verify(flipped, got.Header); err == nil {
			t.Errorf("%s: official library verified a body with a flipped byte", tc.name)
		}
		otherID := got.Header.Clone()
		otherID.Set("webhook-id", eventID+"x")
		if err := wh.Verify(got.Body, otherID); err == nil {
			t.Errorf("%s: official library verified the signature under another webhook-id", tc.name)
		}
	}
}

// TestD76UnsignedRequestStillCarriesIDAndTimestamp: without a secret there
// is nothing to sign, but webhook-id and webhook-timestamp still identify the
// event for a receiver's deduplication.
func TestD76UnsignedRequestStillCarriesIDAndTimestamp(t *testing.T) {
	t.Parallel()
	rcv := testutil.NewTLSReceiver(t, nil)
	client := newClient(t, rcv, webhook.ClientOptions{})
	stamp := time.Unix(1_780_000_000, 0)
	out := client.Send(context.Background(), webhook.Request{URL: rcv.URL(), EventID: "evt-1", Body: []byte(`{}`), Timestamp: stamp})
	if !out.Success {
		t.Fatalf("Send = %+v", out)
	}
	h := rcv.Requests()[0].Header
	want := http.Header{}
	want.Set("webhook-id", "evt-1")
	want.Set("webhook-timestamp", "1780000000")
	for name := range want {
		if h.Get(name) != want.Get(name) {
			t.Errorf("%s = %q, want %q", name, h.Get(name), want.Get(name))
		}
	}
	if h.Get("webhook-signature") != "" {
		t.Errorf("webhook-signature %q sent without a secret", h.Get("webhook-signature"))
	}
}

// TestStandardKeyForms pins D76's key rule on its own: the bytes a whsec_
// secret's base64 encodes, else the secret as given.
func TestStandardKeyForms(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"whsec_MDEyMzQ1Njc4OWFiY2RlZg==": "0123456789abcdef",
		"whsec_not-base64-at-all!":       "whsec_not-base64-at-all!",
		"s3cret-s3cret-s3cret":           "s3cret-s3cret-s3cret",
		"prefix-whsec_MDEyMzQ1Njc4OWFi":  "prefix-whsec_MDEyMzQ1Njc4OWFi",
	}
	for secret, want := range cases {
		if got := string(webhook.StandardKey(secret)); got != want {
			t.Errorf("StandardKey(%q) = %q, want %q", secret, got, want)
		}
	}
}
