package secrets

import (
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
)

// sealedPrefix tags the format, so a later key or algorithm can live next
// to values sealed today.
const sealedPrefix = "v1."

// ErrCannotOpen is returned (wrapped) by Open for a value that is malformed,
// was tampered with, or was sealed with another secret.
var ErrCannotOpen = errors.New("secrets: cannot open sealed value")

// Seal encrypts plaintext with AES-256-GCM under a random nonce and returns
// "v1." + base64url(nonce || ciphertext).
func (b *Box) Seal(plaintext []byte) (string, error) {
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plaintext)+b.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("secrets: reading nonce: %w", err)
	}
	// The prefix is authenticated as additional data, binding the version tag.
	sealed := b.aead.Seal(nonce, nonce, plaintext, []byte(sealedPrefix))
	return sealedPrefix + tokenEncoding.EncodeToString(sealed), nil
}

// Open reverses Seal. Any error wraps ErrCannotOpen.
func (b *Box) Open(sealed string) ([]byte, error) {
	encoded, ok := strings.CutPrefix(sealed, sealedPrefix)
	if !ok {
		return nil, fmt.Errorf("%w: unknown format", ErrCannotOpen)
	}
	raw, err := decodeCanonical(encoded)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCannotOpen, err)
	}
	nonceSize := b.aead.NonceSize()
	if len(raw) < nonceSize+b.aead.Overhead() {
		return nil, fmt.Errorf("%w: too short", ErrCannotOpen)
	}
	plaintext, err := b.aead.Open(nil, raw[:nonceSize], raw[nonceSize:], []byte(sealedPrefix))
	if err != nil {
		return nil, fmt.Errorf("%w: tampered with or sealed with another key", ErrCannotOpen)
	}
	if plaintext == nil {
		// Callers get a non-nil slice for an empty plaintext, like the input.
		plaintext = []byte{}
	}
	return plaintext, nil
}
