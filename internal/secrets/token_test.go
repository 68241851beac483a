package secrets

import (
	"bytes"
	"strings"
	"testing"
)

func TestSignVerifyRoundTrip(t *testing.T) {
	t.Parallel()
	b := newTestBox(t, testSecret)
	for _, payload := range [][]byte{{}, []byte("email_123"), bytes.Repeat([]byte{0xff, 0}, 300)} {
		token := b.Sign("open", payload)
		if strings.Count(token, ".") != 1 {
			t.Fatalf("token %q should have exactly one dot", token)
		}
		got, ok := b.Verify("open", token)
		if !ok || !bytes.Equal(got, payload) {
			t.Fatalf("Verify = %q, %v; want %q, true", got, ok, payload)
		}
	}
}

func TestVerifyBindsPurpose(t *testing.T) {
	t.Parallel()
	b := newTestBox(t, testSecret)
	token := b.Sign("open", []byte("email_123"))
	for _, purpose := range []string{"click", "", "ope", "open "} {
		if _, ok := b.Verify(purpose, token); ok {
			t.Errorf("an open token verified as %q", purpose)
		}
	}
	// The purpose/payload boundary is unambiguous.
	_, mac, _ := strings.Cut(b.Sign("ab", []byte("c")), ".")
	if _, ok := b.Verify("a", tokenEncoding.EncodeToString([]byte("bc"))+"."+mac); ok {
		t.Error(`("ab","c") token verified as ("a","bc")`)
	}
}

func TestVerifyDetectsTampering(t *testing.T) {
	t.Parallel()
	b := newTestBox(t, testSecret)
	token := b.Sign("click", []byte(`{"e":"email_1","u":"https://example.com"}`))
	for i := 0; i < len(token); i++ {
		for _, mask := range []byte{0x01, 0x02, 0x20, 0x40} {
			tampered := []byte(token)
			tampered[i] ^= mask
			if _, ok := b.Verify("click", string(tampered)); ok {
				t.Fatalf("byte %d ^ %#x: tampered token verified", i, mask)
			}
		}
	}
	for _, s := range []string{"", ".", token + ".", token[:len(token)-1], token + "A", strings.Replace(token, ".", ".\n", 1)} {
		if _, ok := b.Verify("click", s); ok {
			t.Errorf("Verify(%q) accepted", s)
		}
	}
}

func TestVerifyRefusesAnotherKey(t *testing.T) {
	t.Parallel()
	token := newTestBox(t, testSecret).Sign("open", []byte("x"))
	if _, ok := newTestBox(t, strings.ToUpper(testSecret)).Verify("open", token); ok {
		t.Fatal("token verified under another secret")
	}
}
