// Package dkim creates and loads the per-domain DKIM signing keys of D31.
package dkim

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
)

// KeyBits is the RSA modulus size of generated keys (D31).
const KeyBits = 2048

// minRSABits is the smallest RSA key accepted when loading; RFC 8301 forbids
// signing with anything shorter.
const minRSABits = 1024

// GenerateKey creates an RSA-2048 key. privatePEM is a PKCS#8 "PRIVATE KEY"
// block; publicB64 is the standard base64 of the DER SubjectPublicKeyInfo,
// exactly what the p= tag of the DKIM TXT record carries.
func GenerateKey() (privatePEM []byte, publicB64 string, err error) {
	key, err := rsa.GenerateKey(rand.Reader, KeyBits)
	if err != nil {
		return nil, "", fmt.Errorf("dkim: generating RSA key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, "", fmt.Errorf("dkim: encoding private key: %w", err)
	}
	publicDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, "", fmt.Errorf("dkim: encoding public key: %w", err)
	}
	privatePEM = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	return privatePEM, base64.StdEncoding.EncodeToString(publicDER), nil
}

// ParsePrivateKey loads a key written by GenerateKey. It also accepts a
// PKCS#1 "RSA PRIVATE KEY" block and PKCS#8 Ed25519 keys (RFC 8463), since
// both are valid DKIM keys an operator might import.
func ParsePrivateKey(pemBytes []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return nil, errors.New("dkim: no PEM block in private key")
	}
	var key any
	var err error
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("dkim: unexpected PEM block %q", block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("dkim: parsing private key: %w", err)
	}
	switch k := key.(type) {
	case *rsa.PrivateKey:
		if bits := k.N.BitLen(); bits < minRSABits {
			return nil, fmt.Errorf("dkim: RSA key of %d bits is too short (at least %d)", bits, minRSABits)
		}
		return k, nil
	case ed25519.PrivateKey:
		return k, nil
	default:
		return nil, fmt.Errorf("dkim: unsupported key type %T", key)
	}
}
