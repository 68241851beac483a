package e2e

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/smtp"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

// writeCertificateFiles writes a certificate for 127.0.0.1 and its key as
// PEM files, as an operator's certificate (say from an ACME client) would
// be, and returns their paths and the certificate's DER bytes.
func writeCertificateFiles(t *testing.T) (certFile, keyFile string, der []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	testserver.Must(t, err == nil, "key: %v", err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: "mail.operator.example"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:     []string{"mail.operator.example"},
	}
	der, err = x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	testserver.Must(t, err == nil, "certificate: %v", err)
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	testserver.Must(t, err == nil, "marshal key: %v", err)
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	testserver.Must(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644) == nil, "write cert")
	testserver.Must(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600) == nil, "write key")
	return certFile, keyFile, der
}

// TestSubmissionCertificateFromFiles (D74): with CARTEIRO_TLS_CERT_FILE
// and CARTEIRO_TLS_KEY_FILE set, both listeners present that certificate,
// not the self-signed one: a client that trusts only it verifies the
// server (name 127.0.0.1) after STARTTLS and over implicit TLS, and sends.
func TestSubmissionCertificateFromFiles(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		certFile, keyFile, der := writeCertificateFiles(t)
		ts, _ := submissionServer(t, b, map[string]string{"CARTEIRO_SUBMISSIONS_ADDR": "127.0.0.1:0",
			"CARTEIRO_TLS_CERT_FILE": certFile, "CARTEIRO_TLS_KEY_FILE": keyFile})
		cert, err := x509.ParseCertificate(der)
		testserver.Must(t, err == nil, "parse: %v", err)
		pool := x509.NewCertPool()
		pool.AddCert(cert)
		trusting := &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}

		c := submissionClient(t, ts.SubmissionAddr(), false)
		testserver.Must(t, c.StartTLS(trusting) == nil, "STARTTLS with only the operator's certificate trusted failed")
		state, _ := c.TLSConnectionState()
		testserver.Must(t, len(state.PeerCertificates) > 0 && bytes.Equal(state.PeerCertificates[0].Raw, der),
			"STARTTLS presented another certificate than the file's")
		testserver.Must(t, c.Auth(smtp.PlainAuth("", "u", ts.LiveKey, "127.0.0.1")) == nil, "AUTH")
		reply := transact(t, c, "orders@shop.example", []string{"ana@customer.example"}, plainMessage("orders@shop.example", "ana@customer.example"))
		testserver.Must(t, queuedReply.MatchString(reply), "DATA reply %q", reply)

		conn, err := tls.Dial("tcp", ts.SubmissionsAddr(), trusting)
		testserver.Must(t, err == nil, "implicit TLS with only the operator's certificate trusted: %v", err)
		defer conn.Close()
		testserver.Must(t, bytes.Equal(conn.ConnectionState().PeerCertificates[0].Raw, der), "implicit TLS presented another certificate")
	})
}
