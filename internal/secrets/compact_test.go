package secrets

import (
	"bytes"
	"strings"
	"testing"
)

func TestCompactRoundTripInAnyCase(t *testing.T) {
	t.Parallel()
	b := newTestBox(t, testSecret)
	for _, payload := range [][]byte{{}, {0}, []byte("email_123"), bytes.Repeat([]byte{0xff, 0}, 9)} {
		token := b.SignCompact("return-path", payload)
		if strings.Trim(token, "abcdefghijklmnopqrstuvwxyz234567") != "" {
			t.Fatalf("token %q has characters outside lowercase base32", token)
		}
		for _, spelled := range []string{token, strings.ToUpper(token)} {
			got, ok := b.VerifyCompact("return-path", spelled)
			if !ok || !bytes.Equal(got, payload) {
				t.Fatalf("VerifyCompact(%q) = %q, %v; want %q, true", spelled, got, ok, payload)
			}
		}
	}
}

func TestCompactDetectsTampering(t *testing.T) {
	t.Parallel()
	b := newTestBox(t, testSecret)
	token := b.SignCompact("return-path", []byte("0123456789abcdef\x00\x02"))
	const alphabet = "abcdefghijklmnopqrstuvwxyz234567"
	for i := range len(token) {
		for _, c := range alphabet {
			if byte(c) == token[i] {
				continue
			}
			tampered := token[:i] + string(c) + token[i+1:]
			if _, ok := b.VerifyCompact("return-path", tampered); ok {
				t.Fatalf("character %d changed to %c: tampered token verified", i, c)
			}
		}
	}
	for _, s := range []string{"", "a", token[:len(token)-1], token + "a", token + "=", " " + token, token[:10] + "." + token[10:]} {
		if _, ok := b.VerifyCompact("return-path", s); ok {
			t.Errorf("VerifyCompact(%q) accepted", s)
		}
	}
}

func TestCompactBindsKeyAndPurpose(t *testing.T) {
	t.Parallel()
	token := newTestBox(t, testSecret).SignCompact("return-path", []byte("x"))
	if _, ok := newTestBox(t, strings.ToUpper(testSecret)).VerifyCompact("return-path", token); ok {
		t.Fatal("token verified under another secret")
	}
	if _, ok := newTestBox(t, testSecret).VerifyCompact("bounce", token); ok {
		t.Fatal("token verified for another purpose")
	}
}
