package secrets

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestSealOpenRoundTrip(t *testing.T) {
	t.Parallel()
	b := newTestBox(t, testSecret)
	for _, plaintext := range [][]byte{
		{},
		[]byte("x"),
		[]byte("-----BEGIN PRIVATE KEY-----\nMIIE...\n-----END PRIVATE KEY-----\n"),
		bytes.Repeat([]byte{0, 1, 2, 255}, 1000),
	} {
		sealed, err := b.Seal(plaintext)
		if err != nil {
			t.Fatalf("Seal: %v", err)
		}
		if !strings.HasPrefix(sealed, "v1.") {
			t.Fatalf("sealed %q lacks the v1. prefix", sealed)
		}
		if len(plaintext) > 8 && strings.Contains(sealed, string(plaintext[:8])) {
			t.Fatalf("sealed value shows the plaintext")
		}
		got, err := b.Open(sealed)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		if got == nil || !bytes.Equal(got, plaintext) {
			t.Fatalf("Open = %q, want %q", got, plaintext)
		}
	}
}

func TestSealUsesFreshNonces(t *testing.T) {
	t.Parallel()
	b := newTestBox(t, testSecret)
	first, _ := b.Seal([]byte("same"))
	second, _ := b.Seal([]byte("same"))
	if first == second {
		t.Fatal("sealing the same plaintext twice gave the same output")
	}
}

func TestOpenDetectsTampering(t *testing.T) {
	t.Parallel()
	b := newTestBox(t, testSecret)
	sealed, err := b.Seal([]byte("the dkim private key"))
	if err != nil {
		t.Fatal(err)
	}
	// Flip every bit pattern of every character, including the prefix.
	for i := 0; i < len(sealed); i++ {
		for _, mask := range []byte{0x01, 0x02, 0x20, 0x40} {
			tampered := []byte(sealed)
			tampered[i] ^= mask
			if _, err := b.Open(string(tampered)); !errors.Is(err, ErrCannotOpen) {
				t.Fatalf("byte %d ^ %#x: Open error = %v, want ErrCannotOpen", i, mask, err)
			}
		}
	}
	// Truncation and extension are tampering too.
	for _, s := range []string{sealed[:len(sealed)-1], sealed + "A", sealed + "\n", "v1." + sealed[3:20]} {
		if _, err := b.Open(s); !errors.Is(err, ErrCannotOpen) {
			t.Fatalf("Open(%q) error = %v, want ErrCannotOpen", s, err)
		}
	}
}

func TestOpenRefusesAnotherKey(t *testing.T) {
	t.Parallel()
	sealer := newTestBox(t, testSecret)
	other := newTestBox(t, testSecret+"!")
	sealed, err := sealer.Seal([]byte("secret"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Open(sealed); !errors.Is(err, ErrCannotOpen) {
		t.Fatalf("Open with another key: error = %v, want ErrCannotOpen", err)
	}
}

func TestOpenRefusesBadFormat(t *testing.T) {
	t.Parallel()
	b := newTestBox(t, testSecret)
	for _, s := range []string{"", "v1.", "v2.AAAA", "plain text", "v1.!!!!", "v1.AAAA", "v1." + strings.Repeat("A", 38)} {
		if _, err := b.Open(s); !errors.Is(err, ErrCannotOpen) {
			t.Errorf("Open(%q) error = %v, want ErrCannotOpen", s, err)
		}
	}
}
