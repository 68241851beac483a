package testutil

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"
)

// PKI is a private certificate authority and one server certificate it
// signed for the loopback names. Each server gets its own, so a client that
// trusts one test server's pool never trusts another one by accident. It
// needs no testing.TB, so the benchmarks (bench/) use it too.
type PKI struct {
	caPEM []byte
	pool  *x509.CertPool
	leaf  tls.Certificate
}

// loopbackIPs and loopbackNames are what the server certificates cover: every
// way a test can spell the address of a server bound to 127.0.0.1.
var (
	loopbackIPs   = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	loopbackNames = []string{"localhost"}
)

// NewPKI creates a CA and a leaf certificate for 127.0.0.1, ::1 and
// localhost. ECDSA P-256 keeps generation in the microseconds range so tests
// stay fast.
func NewPKI(commonName string) (*PKI, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate CA key: %w", err)
	}
	// Backdate NotBefore so a clock slightly behind does not reject the cert.
	notBefore := time.Now().Add(-time.Hour)
	notAfter := notBefore.Add(48 * time.Hour)

	caTemplate := &x509.Certificate{
		SerialNumber:          randomSerial(),
		Subject:               pkix.Name{CommonName: commonName + " test CA", Organization: []string{"Carteiro tests"}},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("create CA certificate: %w", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, fmt.Errorf("parse CA certificate: %w", err)
	}

	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate leaf key: %w", err)
	}
	leafTemplate := &x509.Certificate{
		SerialNumber: randomSerial(),
		Subject:      pkix.Name{CommonName: "localhost", Organization: []string{"Carteiro tests"}},
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  loopbackIPs,
		DNSNames:     loopbackNames,
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTemplate, caCert, &leafKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("create leaf certificate: %w", err)
	}
	leafCert, err := x509.ParseCertificate(leafDER)
	if err != nil {
		return nil, fmt.Errorf("parse leaf certificate: %w", err)
	}

	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	return &PKI{
		caPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		pool:  pool,
		leaf: tls.Certificate{
			Certificate: [][]byte{leafDER, caDER},
			PrivateKey:  leafKey,
			Leaf:        leafCert,
		},
	}, nil
}

// randomSerial returns a 128-bit serial; uniqueness matters only so that
// certificates from different tests never look identical.
func randomSerial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		// crypto/rand does not fail on supported platforms; a fixed serial
		// is still a valid certificate.
		return big.NewInt(1)
	}
	return n
}

// ServerTLSConfig is the configuration both the SMTP server and the HTTPS
// receiver serve with: the leaf certificate and its CA as the chain.
func (p *PKI) ServerTLSConfig() *tls.Config {
	return &tls.Config{
		Certificates: []tls.Certificate{p.leaf},
		MinVersion:   tls.VersionTLS12,
	}
}

// CAPEM is the CA certificate in PEM, what a client that must trust the
// server is given (CARTEIRO_WEBHOOK_CA_FILE, D51).
func (p *PKI) CAPEM() []byte { return p.caPEM }

// CertPool returns a copy of the pool holding the CA, so callers can add to
// it without touching ours.
func (p *PKI) CertPool() *x509.CertPool {
	return p.pool.Clone()
}
