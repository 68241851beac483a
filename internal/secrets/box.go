// Package secrets protects values at rest and signs compact tokens, both with
// keys derived from the one service secret (CARTEIRO_SECRET_KEY).
package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/carteiro/carteiro"
	"golang.org/x/crypto/hkdf"
)

// MinSecretLength is the shortest service secret accepted, in characters.
const MinSecretLength = 32

// generatedSecretLength is the number of base62 characters of a generated
// secret: about 285 bits, comfortably above the 256 bits of the derived keys.
const generatedSecretLength = 48

// HKDF info labels. They make the two derived keys independent, so the
// encryption key never doubles as a MAC key and vice versa. Changing a label
// invalidates every sealed value or token made with it.
const (
	encryptionKeyInfo = "carteiro/secrets/v1/aes-256-gcm"
	signingKeyInfo    = "carteiro/secrets/v1/hmac-sha256"
)

// Box seals values and signs tokens. It is safe for concurrent use.
type Box struct {
	aead       cipher.AEAD
	signingKey []byte
}

// NewBox derives the encryption and signing keys from secret, which must
// have at least MinSecretLength characters.
func NewBox(secret string) (*Box, error) {
	if n := utf8.RuneCountInString(secret); n < MinSecretLength {
		return nil, fmt.Errorf("secrets: the secret key has %d characters, at least %d are required", n, MinSecretLength)
	}
	encryptionKey, err := deriveKey(secret, encryptionKeyInfo)
	if err != nil {
		return nil, err
	}
	signingKey, err := deriveKey(secret, signingKeyInfo)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(encryptionKey)
	if err != nil {
		return nil, fmt.Errorf("secrets: creating AES cipher: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secrets: creating GCM: %w", err)
	}
	return &Box{aead: aead, signingKey: signingKey}, nil
}

// deriveKey expands secret into a 32-byte key bound to info.
func deriveKey(secret, info string) ([]byte, error) {
	key := make([]byte, 32)
	if _, err := io.ReadFull(hkdf.New(sha256.New, []byte(secret), nil, []byte(info)), key); err != nil {
		return nil, fmt.Errorf("secrets: deriving key %q: %w", info, err)
	}
	return key, nil
}

// GenerateSecret returns a fresh random service secret, used on first start
// when CARTEIRO_SECRET_KEY is not set.
func GenerateSecret() string {
	return carteiro.RandomBase62(generatedSecretLength)
}
