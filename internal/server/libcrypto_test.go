package server

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"io"
	"log/slog"
	"os"
	"testing"
)

func TestDKIMLibcryptoSetting(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	off, err := openLibcrypto("off", logger)
	if err != nil || off != nil {
		// A typed nil inside the interface would make the app call it.
		t.Fatalf("off: %v, %v; want a nil interface", off, err)
	}
	auto, err := openLibcrypto("auto", logger)
	if err != nil {
		t.Fatalf("auto never fails: %v", err)
	}
	on, err := openLibcrypto("on", logger)
	if auto == nil {
		if err == nil {
			t.Fatal("on without a loadable libcrypto must refuse to start")
		}
		if os.Getenv("CI") != "" {
			t.Fatal("CI machines have libcrypto.so.3, but auto did not load it")
		}
		t.Skip("no libcrypto here")
	}
	if err != nil || on == nil {
		t.Fatalf("on: %v, %v", on, err)
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	s, err := on.RSASigner(key)
	if err != nil {
		t.Fatal(err)
	}
	d := sha256.Sum256([]byte("setting"))
	sig, err := s.Sign(rand.Reader, d[:], crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	if err := rsa.VerifyPKCS1v15(&key.PublicKey, crypto.SHA256, d[:], sig); err != nil {
		t.Fatalf("signature from the on setting does not verify: %v", err)
	}
}
