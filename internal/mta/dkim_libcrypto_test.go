package mta

import (
	"bytes"
	"crypto/rsa"
	"os"
	"testing"

	"github.com/carteiro/carteiro/internal/libcrypto"
)

// TestLibcryptoSignatureVerifiesThroughDNS signs with the system's
// libcrypto, as the server does when it loads, and verifies the message
// against the published key like a receiving server would.
func TestLibcryptoSignatureVerifiesThroughDNS(t *testing.T) {
	t.Parallel()
	lib, err := libcrypto.Open()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs libcrypto.so.3: %v", err)
		}
		t.Skipf("no libcrypto here (%v)", err)
	}
	key := mustKey(t)
	fast, err := lib.RSASigner(key.signer.(*rsa.PrivateKey))
	if err != nil {
		t.Fatal(err)
	}
	signed, verify := signWithAndPublish(t, sampleMessage(), testKeyPair{signer: fast, publicB64: key.publicB64})
	verifications, err := verify(signed)
	if err != nil || len(verifications) != 1 || verifications[0].Err != nil {
		t.Fatalf("libcrypto's DKIM signature does not verify: %v %+v", err, verifications)
	}
	altered := bytes.Replace(signed, []byte("Subject: Your invoice #42"), []byte("Subject: Your invoice #43"), 1)
	verifications, err = verify(altered)
	if err != nil || len(verifications) != 1 || verifications[0].Err == nil {
		t.Fatalf("an altered message still verifies: %v", err)
	}
}
