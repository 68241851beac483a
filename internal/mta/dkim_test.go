package mta

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/dnscheck"
	"github.com/carteiro/carteiro/internal/testutil"
	"github.com/emersion/go-msgauth/dkim"
)

// signAndPublish builds and signs the sample message and publishes the key
// in a test DNS server; it returns the signed bytes and a verifier bound to
// that server.
func signAndPublish(t *testing.T, m *Message) ([]byte, func([]byte) ([]*dkim.Verification, error)) {
	t.Helper()
	return signWithAndPublish(t, m, mustKey(t))
}

func signWithAndPublish(t *testing.T, m *Message, key testKeyPair) ([]byte, func([]byte) ([]*dkim.Verification, error)) {
	t.Helper()
	dns := testutil.NewDNSServer(t)
	dns.SetTXT("cart1._domainkey.example.com", "v=DKIM1; k=rsa; p="+key.publicB64)
	resolver, err := dnscheck.NewResolver(dns.Addr(), 2*time.Second)
	if err != nil {
		t.Fatalf("resolver: %v", err)
	}
	raw, err := Build(m)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	signer := &DKIMSigner{Domain: "example.com", Selector: "cart1", Key: key.signer}
	signed, err := signer.Sign(raw)
	if err != nil {
		t.Fatalf("Sign: %v", err)
	}
	verify := func(msg []byte) ([]*dkim.Verification, error) {
		return dkim.VerifyWithOptions(bytes.NewReader(msg), &dkim.VerifyOptions{
			LookupTXT: func(domain string) ([]string, error) {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				defer cancel()
				return resolver.LookupTXT(ctx, domain)
			},
		})
	}
	return signed, verify
}

func TestSignVerifiesThroughDNS(t *testing.T) {
	t.Parallel()
	signed, verify := signAndPublish(t, sampleMessage())
	assertWireSafe(t, signed)
	if !bytes.HasPrefix(signed, []byte("DKIM-Signature:")) {
		t.Fatalf("signature not prepended: %q", truncate(string(signed), 40))
	}
	verifications, err := verify(signed)
	if err != nil || len(verifications) != 1 {
		t.Fatalf("Verify: %d verifications, %v", len(verifications), err)
	}
	v := verifications[0]
	if v.Err != nil {
		t.Fatalf("signature does not verify: %v", v.Err)
	}
	if v.Domain != "example.com" {
		t.Errorf("d= %q", v.Domain)
	}
	// Every header that matters is covered, From and the unsubscribe pair
	// included, and From is over-signed.
	signedKeys := strings.ToLower(strings.Join(v.HeaderKeys, ":"))
	for _, want := range []string{"from:from", "to", "cc", "reply-to", "subject", "date", "message-id",
		"mime-version", "content-type", "list-unsubscribe", "list-unsubscribe-post"} {
		if !strings.Contains(signedKeys, want) {
			t.Errorf("h= %q lacks %q", signedKeys, want)
		}
	}
	header := string(signed[:bytes.Index(signed, []byte("\r\n\r\n"))])
	if !strings.Contains(header, "a=rsa-sha256") || !strings.Contains(header, "c=relaxed/relaxed") {
		t.Errorf("signature parameters: %s", truncate(header, 300))
	}
}

func TestSignDetectsTampering(t *testing.T) {
	t.Parallel()
	signed, verify := signAndPublish(t, sampleMessage())
	tamper := map[string]func([]byte) []byte{
		"subject changed": func(b []byte) []byte {
			return bytes.Replace(b, []byte("Subject: Your invoice #42"), []byte("Subject: Your invoice #43"), 1)
		},
		// Added above the signed one, a second From would still verify
		// without over-signing (verifiers pick headers bottom-up).
		"second From added on top": func(b []byte) []byte {
			return bytes.Replace(b, []byte("\r\nFrom: "), []byte("\r\nFrom: attacker@evil.example\r\nFrom: "), 1)
		},
		"unsubscribe changed": func(b []byte) []byte {
			return bytes.Replace(b, []byte("/u/tok>"), []byte("/u/other>"), 1)
		},
		"body changed": func(b []byte) []byte {
			return bytes.Replace(b, []byte("your invoice is attached."), []byte("your invoice is overdue!!"), 1)
		},
	}
	for name, mutate := range tamper {
		t.Run(name, func(t *testing.T) {
			altered := mutate(bytes.Clone(signed))
			if bytes.Equal(altered, signed) {
				t.Fatal("the tampering did not change the message")
			}
			verifications, err := verify(altered)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if len(verifications) != 1 || verifications[0].Err == nil {
				t.Fatalf("altered message still verifies")
			}
		})
	}
}

func TestSignRequiresFrom(t *testing.T) {
	t.Parallel()
	signer := &DKIMSigner{Domain: "example.com", Selector: "cart1", Key: mustKey(t).signer}
	if _, err := signer.Sign([]byte("Subject: x\r\n\r\nbody\r\n")); err == nil {
		t.Error("message without From was signed")
	}
	if _, err := (&DKIMSigner{Domain: "example.com", Selector: "cart1"}).Sign([]byte("From: a@b.c\r\n\r\n")); err == nil {
		t.Error("signer without key signed")
	}
}
