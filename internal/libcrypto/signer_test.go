package libcrypto

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"os"
	"sync"
	"testing"
)

// openOrSkip opens libcrypto. In CI (CI set) a missing library fails the
// test: the machines CI runs on have it, and the fast path must stay tested.
func openOrSkip(t testing.TB) *Library {
	t.Helper()
	l, err := Open()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs libcrypto.so.3: %v", err)
		}
		t.Skipf("no libcrypto here (%v); Go's crypto/rsa signs instead", err)
	}
	return l
}

// newSigner makes a key of bits and its libcrypto signer.
func newSigner(t *testing.T, l *Library, bits int) (*rsa.PrivateKey, crypto.Signer) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		t.Fatal(err)
	}
	s, err := l.RSASigner(key)
	if err != nil {
		t.Fatalf("%d bits: %v", bits, err)
	}
	return key, s
}

func TestSignaturesAreCryptoRSAsBytes(t *testing.T) {
	l := openOrSkip(t)
	for _, bits := range []int{1024, 2048, 3072} {
		key, s := newSigner(t, l, bits)
		if pub, ok := s.Public().(*rsa.PublicKey); !ok || !pub.Equal(&key.PublicKey) {
			t.Fatalf("%d bits: Public() = %#v, want the key's *rsa.PublicKey", bits, s.Public())
		}
		for i := range 5 {
			msg := []byte(fmt.Sprintf("message %d of %d bits", i, bits))
			d256 := sha256.Sum256(msg)
			d1 := sha1.Sum(msg)
			for _, c := range []struct {
				hash   crypto.Hash
				digest []byte
			}{{crypto.SHA256, d256[:]}, {crypto.SHA1, d1[:]}} {
				got, err := s.Sign(rand.Reader, c.digest, c.hash)
				if err != nil {
					t.Fatalf("%d bits %v: %v", bits, c.hash, err)
				}
				want, err := rsa.SignPKCS1v15(nil, key, c.hash, c.digest)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("%d bits %v: libcrypto's signature differs from crypto/rsa's", bits, c.hash)
				}
				if err := rsa.VerifyPKCS1v15(&key.PublicKey, c.hash, c.digest, got); err != nil {
					t.Fatalf("%d bits %v: does not verify: %v", bits, c.hash, err)
				}
			}
		}
	}
}

func TestOtherSchemesFallBackToGo(t *testing.T) {
	key, s := newSigner(t, openOrSkip(t), 2048)
	d512 := sha512.Sum512([]byte("x"))
	sig, err := s.Sign(rand.Reader, d512[:], crypto.SHA512)
	if err != nil {
		t.Fatal(err)
	}
	if err := rsa.VerifyPKCS1v15(&key.PublicKey, crypto.SHA512, d512[:], sig); err != nil {
		t.Fatalf("SHA-512 through Go: %v", err)
	}
	d256 := sha256.Sum256([]byte("y"))
	pss, err := s.Sign(rand.Reader, d256[:], &rsa.PSSOptions{Hash: crypto.SHA256})
	if err != nil {
		t.Fatal(err)
	}
	if err := rsa.VerifyPSS(&key.PublicKey, crypto.SHA256, d256[:], pss, nil); err != nil {
		t.Fatalf("PSS through Go: %v", err)
	}
	if _, err := s.Sign(rand.Reader, d256[:20], crypto.SHA256); err == nil {
		t.Fatal("a 20-byte digest said to be SHA-256 was signed")
	}
}

// TestConcurrentSigning shares one signer between goroutines, as deliveries
// do; every signature must still be right (run under -race in CI).
func TestConcurrentSigning(t *testing.T) {
	key, s := newSigner(t, openOrSkip(t), 2048)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				d := sha256.Sum256([]byte(fmt.Sprintf("%d/%d", g, i)))
				sig, err := s.Sign(nil, d[:], crypto.SHA256)
				if err == nil {
					err = rsa.VerifyPKCS1v15(&key.PublicKey, crypto.SHA256, d[:], sig)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func BenchmarkSign2048(b *testing.B) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		b.Fatal(err)
	}
	d := sha256.Sum256([]byte("benchmark"))
	b.Run("crypto-rsa", func(b *testing.B) {
		for b.Loop() {
			if _, err := key.Sign(nil, d[:], crypto.SHA256); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("libcrypto", func(b *testing.B) {
		s, err := openOrSkip(b).RSASigner(key)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := s.Sign(nil, d[:], crypto.SHA256); err != nil {
				b.Fatal(err)
			}
		}
	})
}
