package webhook_test

import (
	"strings"
	"testing"

	"github.com/carteiro/carteiro/internal/webhook"
)

// Expected values computed with `openssl dgst -sha256 -hmac`, not with the
// code under test.
func TestSignMatchesIndependentHMAC(t *testing.T) {
	t.Parallel()
	const secret = "whsec_testsecret0123456789"
	body := []byte(`{"id":"evt_1"}`)

	if got, want := webhook.Sign(secret, body), "7d1ccc28d7cd0524636e68412c311432d2953f91fd54c3dab27297bb0b4b953a"; got != want {
		t.Errorf("Sign = %s, want %s", got, want)
	}
	// D48: V2 signs "<timestamp>.<raw body>".
	want := "t=1700000000,v1=68450d7056a6fe65a9fed90fbcb370ca2b088e33f08f1b579ae5b7f05fa2fd9a"
	if got := webhook.SignV2(secret, 1700000000, body); got != want {
		t.Errorf("SignV2 = %s, want %s", got, want)
	}
	// The classic RFC-style vector, to pin hex lower case and key handling.
	if got := webhook.Sign("key", []byte("The quick brown fox jumps over the lazy dog")); got != "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8" {
		t.Errorf("Sign(key, fox) = %s", got)
	}
}

func TestNewSecretShape(t *testing.T) {
	t.Parallel()
	a, b := webhook.NewSecret(), webhook.NewSecret()
	if a == b {
		t.Fatalf("two secrets are equal: %s", a)
	}
	for _, s := range []string{a, b} {
		rest, ok := strings.CutPrefix(s, "whsec_")
		if !ok || len(rest) != 32 {
			t.Errorf("secret %q: want whsec_ + 32 characters (D48)", s)
		}
		if strings.Trim(rest, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") != "" {
			t.Errorf("secret %q is not base62 after the prefix", s)
		}
		if !webhook.ValidSecret(s) {
			t.Errorf("generated secret %q fails ValidSecret", s)
		}
	}
}

func TestSecretPreview(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"whsec_AbCdefghijklmnopqrstuvwxyz012345": "whsec_AbC…",
		"my-own-secret-value-1234":               "my-o…", // a customer's own secret: 4 characters
		"short":                                  "…",
		"":                                       "",
	}
	for secret, want := range cases {
		if got := webhook.SecretPreview(secret); got != want {
			t.Errorf("SecretPreview(%q) = %q, want %q", secret, got, want)
		}
	}
}

func TestValidSecret(t *testing.T) {
	t.Parallel()
	cases := []struct {
		secret string
		want   bool
	}{
		{strings.Repeat("a", 15), false},
		{strings.Repeat("a", 16), true},
		{strings.Repeat("~", 256), true},
		{strings.Repeat("a", 257), false},
		{"with space inside ok", true},
		{"sixteen-chars-\nx", false},
		{"sixteen-chars-\x7fx", false},
		{"sixteen-chars-éé", false},
		{"", false},
	}
	for _, c := range cases {
		if got := webhook.ValidSecret(c.secret); got != c.want {
			t.Errorf("ValidSecret(%q) = %v, want %v", c.secret, got, c.want)
		}
	}
}
