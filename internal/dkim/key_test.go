package dkim

import (
	"bytes"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"strings"
	"testing"

	msgdkim "github.com/emersion/go-msgauth/dkim"
)

type keyPair struct {
	privatePEM []byte
	publicB64  string
}

// testKey generates a fresh key; RSA-2048 takes well under a second.
func testKey(t *testing.T) keyPair {
	t.Helper()
	privatePEM, publicB64, err := GenerateKey()
	if err != nil {
		t.Fatalf("GenerateKey: %v", err)
	}
	return keyPair{privatePEM, publicB64}
}

func TestGenerateKeyShapes(t *testing.T) {
	t.Parallel()
	k := testKey(t)
	block, rest := pem.Decode(k.privatePEM)
	if block == nil || block.Type != "PRIVATE KEY" || len(bytes.TrimSpace(rest)) != 0 {
		t.Fatalf("private key is not a single PKCS#8 PEM block:\n%s", k.privatePEM)
	}
	signer, err := ParsePrivateKey(k.privatePEM)
	if err != nil {
		t.Fatalf("ParsePrivateKey: %v", err)
	}
	private, ok := signer.(*rsa.PrivateKey)
	if !ok || private.N.BitLen() != 2048 {
		t.Fatalf("signer is %T, want a 2048-bit *rsa.PrivateKey", signer)
	}
	der, err := base64.StdEncoding.DecodeString(k.publicB64)
	if err != nil {
		t.Fatalf("public key is not base64: %v", err)
	}
	public, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		t.Fatalf("public key is not a SubjectPublicKeyInfo: %v", err)
	}
	if !private.Public().(*rsa.PublicKey).Equal(public) {
		t.Fatal("public key does not match the private key")
	}
}

func TestGenerateKeyIsFresh(t *testing.T) {
	t.Parallel()
	_, other, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	if other == testKey(t).publicB64 {
		t.Fatal("two generated keys are equal")
	}
}

func TestParsePrivateKeyAcceptsPKCS1(t *testing.T) {
	t.Parallel()
	signer, err := ParsePrivateKey(testKey(t).privatePEM)
	if err != nil {
		t.Fatal(err)
	}
	pkcs1 := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(signer.(*rsa.PrivateKey))})
	again, err := ParsePrivateKey(pkcs1)
	if err != nil {
		t.Fatalf("PKCS#1: %v", err)
	}
	if !again.(*rsa.PrivateKey).Equal(signer) {
		t.Fatal("PKCS#1 key differs from the PKCS#8 one")
	}
}

func TestParsePrivateKeyRefusesGarbage(t *testing.T) {
	t.Parallel()
	for name, input := range map[string][]byte{
		"empty":       nil,
		"not pem":     []byte("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"),
		"wrong type":  pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1, 2, 3}}),
		"bad content": pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1, 2, 3}}),
	} {
		if _, err := ParsePrivateKey(input); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestSignedMessageVerifies is the end-to-end check of D31: a message signed
// with the private key verifies against the TXT record we tell customers to
// publish, and fails against another key.
func TestSignedMessageVerifies(t *testing.T) {
	t.Parallel()
	k := testKey(t)
	signer, err := ParsePrivateKey(k.privatePEM)
	if err != nil {
		t.Fatal(err)
	}
	message := strings.ReplaceAll(`From: Ana <ana@example.com>
To: bob@example.org
Subject: Hello
Date: Sat, 22 Nov 2025 10:00:00 +0000
Message-ID: <1@example.com>

Hi Bob.
`, "\n", "\r\n")
	var signed bytes.Buffer
	err = msgdkim.Sign(&signed, strings.NewReader(message), &msgdkim.SignOptions{
		Domain:   "example.com",
		Selector: "cart1",
		Signer:   signer,
	})
	if err != nil {
		t.Fatalf("Sign: %v", err)
	}

	verify := func(publicB64 string) (*msgdkim.Verification, []string) {
		var asked []string
		verifications, err := msgdkim.VerifyWithOptions(bytes.NewReader(signed.Bytes()), &msgdkim.VerifyOptions{
			LookupTXT: func(name string) ([]string, error) {
				asked = append(asked, name)
				if name != "cart1._domainkey.example.com" {
					return nil, fmt.Errorf("unexpected lookup %q", name)
				}
				return []string{"v=DKIM1; k=rsa; p=" + publicB64}, nil
			},
		})
		if err != nil || len(verifications) != 1 {
			t.Fatalf("VerifyWithOptions: %d verifications, %v", len(verifications), err)
		}
		return verifications[0], asked
	}

	v, asked := verify(k.publicB64)
	if v.Err != nil {
		t.Fatalf("signature does not verify: %v", v.Err)
	}
	if v.Domain != "example.com" || len(asked) != 1 {
		t.Fatalf("domain %q, lookups %v", v.Domain, asked)
	}

	_, otherPublic, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := verify(otherPublic); v.Err == nil {
		t.Fatal("signature verified against another public key")
	}
}
