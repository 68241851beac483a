package libcrypto

import (
	"bytes"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"fmt"
	"io"
	"runtime"
	"unsafe"
)

// rsaSigner signs PKCS #1 v1.5 SHA-1 and SHA-256 digests with libcrypto and
// leaves anything else (PSS, other hashes) to Go's key, which it keeps.
type rsaSigner struct {
	lib  *Library
	key  *rsa.PrivateKey
	pkey unsafe.Pointer // EVP_PKEY, freed when the signer is collected
}

// RSASigner returns a crypto.Signer for key whose PKCS #1 v1.5 signatures
// come from libcrypto. Before returning it signs one digest both ways and
// refuses the key unless the two signatures are the same bytes, so a key
// that libcrypto reads differently never signs a message.
func (l *Library) RSASigner(key *rsa.PrivateKey) (crypto.Signer, error) {
	pkey, err := l.loadRSA(x509.MarshalPKCS1PrivateKey(key))
	if err != nil {
		return nil, err
	}
	s := &rsaSigner{lib: l, key: key, pkey: pkey}
	runtime.AddCleanup(s, l.freeKey, pkey)

	probe := sha256.Sum256([]byte("carteiro libcrypto self-test"))
	want, err := rsa.SignPKCS1v15(nil, key, crypto.SHA256, probe[:])
	if err != nil {
		return nil, fmt.Errorf("libcrypto: self-test with crypto/rsa: %w", err)
	}
	got, err := s.Sign(nil, probe[:], crypto.SHA256)
	if err != nil {
		return nil, fmt.Errorf("libcrypto: self-test: %w", err)
	}
	if !bytes.Equal(got, want) {
		return nil, fmt.Errorf("libcrypto: self-test: signature differs from crypto/rsa's")
	}
	return s, nil
}

// Public is the key's public half, an *rsa.PublicKey as crypto/rsa's own
// keys give (DKIM signers pick the algorithm from its type).
func (s *rsaSigner) Public() crypto.PublicKey {
	return &s.key.PublicKey
}

// Sign signs digest. rand is not used by PKCS #1 v1.5, which is
// deterministic; libcrypto blinds with its own generator.
func (s *rsaSigner) Sign(rand io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	hash := opts.HashFunc()
	_, pss := opts.(*rsa.PSSOptions)
	if pss || (hash != crypto.SHA256 && hash != crypto.SHA1) {
		return s.key.Sign(rand, digest, opts)
	}
	if len(digest) != hash.Size() {
		return nil, fmt.Errorf("libcrypto: digest of %d bytes for %v, want %d", len(digest), hash, hash.Size())
	}
	sig := make([]byte, s.key.Size())
	n, err := s.lib.signPKCS1v15(s.pkey, hash == crypto.SHA1, digest, sig)
	// The EVP_PKEY must outlive the C call: the cleanup frees it once s
	// is unreachable, which could otherwise be before the call returns.
	runtime.KeepAlive(s)
	if err != nil {
		return nil, err
	}
	if n != len(sig) {
		return nil, fmt.Errorf("libcrypto: signature of %d bytes, want %d", n, len(sig))
	}
	return sig, nil
}
