package secrets

import "testing"

// FuzzOpen feeds arbitrary strings to Open: it must never panic, and the
// only thing it may accept is a sealed "seed" (the key is derived from the
// fixed test secret, so seeds from any fuzz worker open).
func FuzzOpen(f *testing.F) {
	b := newTestBox(f, testSecret)
	sealed, err := b.Seal([]byte("seed"))
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{sealed, "", "v1.", "v1.AAAA", "v1.\n", sealed[:len(sealed)-2]} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		plaintext, err := b.Open(s)
		if err == nil && string(plaintext) != "seed" {
			// Only a genuine GCM forgery could get here.
			t.Fatalf("Open accepted an unsealed input %q -> %q", s, plaintext)
		}
	})
}

// FuzzVerify feeds arbitrary purposes and tokens to Verify: no panic, and
// a token accepted for a purpose re-signs to itself.
func FuzzVerify(f *testing.F) {
	b := newTestBox(f, testSecret)
	f.Add("open", b.Sign("open", []byte("email_1")))
	f.Add("click", b.Sign("open", []byte("email_1")))
	f.Add("", "")
	f.Add("open", ".")
	f.Add("open", "AAAA.AAAAAAAAAAAAAAAAAAAAAA")
	f.Fuzz(func(t *testing.T, purpose, token string) {
		payload, ok := b.Verify(purpose, token)
		if ok && b.Sign(purpose, payload) != token {
			t.Fatalf("Verify accepted %q for %q, which Sign would not produce", token, purpose)
		}
		if !ok && payload != nil {
			t.Fatalf("a refused token returned a payload")
		}
	})
}
