package main

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The receiver must be reachable only by a client that trusts the
// benchmark's CA, as the service's webhook client is, and must note what
// it is sent.
func TestReceiverTrustsOnlyItsCAAndRecordsPayloads(t *testing.T) {
	t.Parallel()
	caPath := filepath.Join(t.TempDir(), "ca.pem")
	cert, err := receiverCert(caPath)
	if err != nil {
		t.Fatal(err)
	}
	rcv := startReceiver(cert, false)
	defer rcv.Close()

	if _, err := http.Post(rcv.URL()+hookPath(0), "application/json", strings.NewReader("{}")); err == nil {
		t.Fatal("a client without the CA reached the receiver")
	}
	pemBytes, err := os.ReadFile(caPath)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pemBytes) {
		t.Fatal("CA file holds no certificate")
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	created := time.Now().Add(-300 * time.Millisecond).UTC()
	body := `{"id":"ev1","type":"email.sent","createdAt":"` + created.Format(time.RFC3339Nano) + `","data":{"emailId":"m1"}}`
	for _, b := range []string{body, "not json"} {
		resp, err := client.Post(rcv.URL()+hookPath(3), "application/json", strings.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d, want 200", resp.StatusCode)
		}
	}
	got := rcv.Arrivals()
	if len(got) != 1 || rcv.Bad() != 1 || rcv.Count() != 1 {
		t.Fatalf("arrivals %+v, bad %d, count %d", got, rcv.Bad(), rcv.Count())
	}
	a := got[0]
	if a.Hook != 3 || a.EventID != "ev1" || a.EmailID != "m1" || a.Type != "email.sent" || !a.Created.Equal(created) {
		t.Fatalf("arrival %+v", a)
	}
	if lat := a.Arrived.Sub(a.Created); lat < 300*time.Millisecond || lat > 10*time.Second {
		t.Fatalf("latency %v, want about 300 ms", lat)
	}
}
