package submission

import (
	"bytes"
	"context"
	"testing"

	"github.com/carteiro/carteiro/internal/secrets"
)

type memSettings map[string]string

func (m memSettings) SettingOrInit(_ context.Context, key, value string) (string, error) {
	if v, ok := m[key]; ok {
		return v, nil
	}
	m[key] = value
	return value, nil
}

// D74: the self-signed certificate is made once, kept sealed (D64: no
// private key in clear at rest), and every later start offers the same.
func TestSelfSignedCertificateKeptSealedD74(t *testing.T) {
	box, err := secrets.NewBox(secrets.GenerateSecret())
	if err != nil {
		t.Fatal(err)
	}
	st := memSettings{}
	first, err := Certificate(context.Background(), "", "", "mail.example", st, box)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Certificate(context.Background(), "", "", "mail.example", st, box)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Certificate[0], second.Certificate[0]) {
		t.Fatal("a second start made another certificate")
	}
	if bytes.Contains([]byte(st[certificateSetting]), []byte("PRIVATE KEY")) {
		t.Fatal("the private key is stored in clear")
	}
}
