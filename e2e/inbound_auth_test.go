package e2e

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/emersion/go-msgauth/dkim"

	"github.com/carteiro/carteiro/internal/testserver"
)

// dkimKey makes an RSA key and its DKIM record value.
func dkimKey(t *testing.T) (*rsa.PrivateKey, string) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	testserver.Must(t, err == nil, "rsa key: %v", err)
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	testserver.Must(t, err == nil, "public key: %v", err)
	return key, "v=DKIM1; k=rsa; p=" + base64.StdEncoding.EncodeToString(der)
}

// dkimSigned signs raw for domain with selector s1.
func dkimSigned(t *testing.T, raw []byte, domain string, key crypto.Signer) []byte {
	t.Helper()
	var out bytes.Buffer
	err := dkim.Sign(&out, bytes.NewReader(raw), &dkim.SignOptions{Domain: domain, Selector: "s1", Signer: key,
		HeaderKeys: []string{"From", "To", "Subject", "Message-ID"}})
	testserver.Must(t, err == nil, "dkim sign: %v", err)
	return out.Bytes()
}

// TestInboundAuthenticationResults (D75): SPF, DKIM and DMARC are
// evaluated against the records the test DNS publishes (the service's
// resolver) and stored with the message and in the webhook: pass (the
// client's address is in SPF, a valid aligned signature, a DMARC policy),
// fail (the address is not allowed, the signature does not verify with the
// published key, DMARC then fails), and none (no records, no signature).
func TestInboundAuthenticationResults(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		r := newInboundRig(t, b, nil)
		addr := r.mxAddr(t, "shop.example")
		dns := r.ts.DNS

		goodKey, goodRecord := dkimKey(t)
		dns.SetTXT("good.example", "v=spf1 ip4:127.0.0.1 -all")
		dns.SetTXT("s1._domainkey.good.example", goodRecord)
		dns.SetTXT("_dmarc.good.example", "v=DMARC1; p=reject")

		forgedKey, _ := dkimKey(t)
		_, otherRecord := dkimKey(t)
		dns.SetTXT("forged.example", "v=spf1 ip4:192.0.2.1 -all")
		dns.SetTXT("s1._domainkey.forged.example", otherRecord)
		dns.SetTXT("_dmarc.forged.example", "v=DMARC1; p=reject")

		cases := []struct {
			name, domain     string
			key              crypto.Signer
			spf, dkim, dmarc string
		}{
			{"pass", "good.example", goodKey, "pass", "pass", "pass"},
			{"fail", "forged.example", forgedKey, "fail", "fail", "fail"},
			{"none", "plain.example", nil, "none", "none", "none"},
		}
		for _, c := range cases {
			to := c.name + "@shop.example"
			raw := []byte("From: ana@" + c.domain + "\r\nTo: " + to + "\r\nSubject: auth " + c.name + "\r\nMessage-ID: <" + c.name + "@" + c.domain +
				">\r\n\r\nbody\r\n")
			if c.key != nil {
				raw = dkimSigned(t, raw, c.domain, c.key)
			}
			err := sendSMTP(addr, "mail."+c.domain, "bounce@"+c.domain, []string{to}, raw)
			testserver.Must(t, err == nil, "%s: %v", c.name, err)
			var list []inboundItem
			waitFor(t, func() bool { list = r.inboundTo(t, to); return len(list) == 1 })
			got := list[0]
			testserver.Must(t, got.SPF == c.spf && got.DKIM == c.dkim && got.DMARC == c.dmarc, "%s: spf=%s dkim=%s dmarc=%s, want %s %s %s (%s)",
				c.name, got.SPF, got.DKIM, got.DMARC, c.spf, c.dkim, c.dmarc, got.AuthenticationResults)
			testserver.Must(t, strings.HasPrefix(got.AuthenticationResults, inboundMX+"; spf="+c.spf+" smtp.mailfrom="+c.domain) &&
				strings.Contains(got.AuthenticationResults, "dmarc="+c.dmarc+" header.from="+c.domain), "%s: Authentication-Results %q", c.name, got.AuthenticationResults)
		}
		hooks := r.receivedHooks(t, 3)
		for _, h := range hooks {
			subject, _ := h.Data["subject"].(string)
			want := strings.TrimPrefix(subject, "auth ")
			testserver.Must(t, h.Data["spf"] == want && h.Data["dkim"] == want && h.Data["dmarc"] == want, "webhook %s: %v", subject, h.Data)
		}
	})
}
