package main

import (
	"crypto/tls"
	"fmt"
	"os"

	"github.com/carteiro/carteiro/internal/testutil"
)

// receiverCert makes a certificate authority of the benchmark's own (the
// tests' one), writes its certificate as PEM to caPath
// (CARTEIRO_WEBHOOK_CA_FILE, D51), and returns a server certificate for
// 127.0.0.1 signed by it, so the service verifies the receiver exactly as
// it verifies a real endpoint.
func receiverCert(caPath string) (tls.Certificate, error) {
	pki, err := testutil.NewPKI("Carteiro benchmark receiver")
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("receiver certificate: %w", err)
	}
	if err := os.WriteFile(caPath, pki.CAPEM(), 0o600); err != nil {
		return tls.Certificate{}, fmt.Errorf("write CA file: %w", err)
	}
	return pki.ServerTLSConfig().Certificates[0], nil
}
