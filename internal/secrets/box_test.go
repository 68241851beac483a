package secrets

import (
	"strings"
	"testing"
)

// testSecret is 32 characters, the shortest accepted.
const testSecret = "0123456789abcdefghijklmnopqrstuv"

func newTestBox(t testing.TB, secret string) *Box {
	t.Helper()
	b, err := NewBox(secret)
	if err != nil {
		t.Fatalf("NewBox: %v", err)
	}
	return b
}

func TestNewBoxRefusesShortSecret(t *testing.T) {
	t.Parallel()
	for _, secret := range []string{"", "short", testSecret[:31]} {
		if _, err := NewBox(secret); err == nil {
			t.Errorf("NewBox(%q) accepted a %d-character secret", secret, len(secret))
		}
	}
	if _, err := NewBox(testSecret); err != nil {
		t.Errorf("NewBox with 32 characters: %v", err)
	}
}

func TestDerivedKeysAreIndependent(t *testing.T) {
	t.Parallel()
	b := newTestBox(t, testSecret)
	// The signing key must not be the AES key nor the raw secret; sealing
	// with one and signing with the other would otherwise share material.
	if string(b.signingKey) == testSecret[:32] {
		t.Fatal("signing key is the raw secret")
	}
	other, err := deriveKey(testSecret, encryptionKeyInfo)
	if err != nil {
		t.Fatal(err)
	}
	if string(other) == string(b.signingKey) {
		t.Fatal("encryption and signing keys are equal")
	}
	if len(b.signingKey) != 32 || len(other) != 32 {
		t.Fatalf("key lengths %d and %d, want 32", len(b.signingKey), len(other))
	}
}

func TestGenerateSecret(t *testing.T) {
	t.Parallel()
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	a, b := GenerateSecret(), GenerateSecret()
	if len(a) != 48 {
		t.Fatalf("len = %d, want 48", len(a))
	}
	if a == b {
		t.Fatal("two generated secrets are equal")
	}
	if strings.Trim(a, alphabet) != "" {
		t.Fatalf("%q has characters outside base62", a)
	}
	if _, err := NewBox(a); err != nil {
		t.Fatalf("a generated secret is refused: %v", err)
	}
}
