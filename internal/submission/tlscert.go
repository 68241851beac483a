package submission

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"time"
)

// certificateSetting is the settings key of the sealed self-signed
// certificate.
const certificateSetting = "submission_tls_certificate"

// SettingStore keeps the first value stored under a key (store.Store).
type SettingStore interface {
	SettingOrInit(ctx context.Context, key, value string) (string, error)
}

// Sealer encrypts values at rest (secrets.Box).
type Sealer interface {
	Seal(plaintext []byte) (string, error)
	Open(sealed string) ([]byte, error)
}

// Certificate is the listeners' certificate (D74): from certFile and
// keyFile when given, else a self-signed one made on the first start and
// kept sealed in the database, so every API process and every restart
// offers the same one (clients that pin it keep working).
func Certificate(ctx context.Context, certFile, keyFile, hostname string, st SettingStore, box Sealer) (tls.Certificate, error) {
	if certFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("CARTEIRO_TLS_CERT_FILE/CARTEIRO_TLS_KEY_FILE: %w", err)
		}
		return cert, nil
	}
	fresh, err := selfSigned(hostname)
	if err != nil {
		return tls.Certificate{}, err
	}
	sealed, err := box.Seal(fresh)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("seal TLS certificate: %w", err)
	}
	// Concurrent first starts agree on one: the first stored wins.
	if sealed, err = st.SettingOrInit(ctx, certificateSetting, sealed); err != nil {
		return tls.Certificate{}, err
	}
	pemBundle, err := box.Open(sealed)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("open the stored TLS certificate (was CARTEIRO_SECRET_KEY changed?): %w", err)
	}
	return tls.X509KeyPair(pemBundle, pemBundle)
}

// selfSigned makes a P-256 certificate for hostname valid ten years, as
// PEM certificate then key.
func selfSigned(hostname string) ([]byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate TLS key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("generate TLS serial: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: hostname}, DNSNames: []string{hostname},
		NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(10, 0, 0),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("create TLS certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encode TLS key: %w", err)
	}
	out := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return append(out, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})...), nil
}
