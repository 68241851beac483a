package e2e

import (
	"context"
	"encoding/base64"
	"encoding/pem"
	"strings"
	"testing"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/secrets"
	"github.com/carteiro/carteiro/internal/testserver"
)

// TestNoSecretInClearText reads every raw row: API keys appear only as
// hashes, DKIM private keys and TOTP secrets only sealed.
func TestNoSecretInClearText(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		ctx := context.Background()
		keys := []string{ts.LiveKey, ts.TestKey,
			ts.NewKey(t, app.KeyRequest{OrgID: ts.OrgID, Name: "extra", Mode: carteiro.ModeLive})}
		d := createDomain(t, ts, ts.LiveKey, "sealed.example")
		secret, _, err := ts.App.EnableTOTP(ctx, ts.OrgID)
		testserver.Must(t, err == nil, "enable TOTP: %v", err)

		// The private key as the MTA will use it, to know what to look for.
		dom, err := ts.Store.DomainByID(ctx, d.ID)
		testserver.Must(t, err == nil, "read domain: %v", err)

		dump := testserver.DumpDatabase(t, ts.Config.DatabaseURL)
		testserver.Must(t, strings.Contains(dump, d.ID), "dump does not contain the domain; is it reading the right database?")
		for _, k := range keys {
			testserver.Must(t, !strings.Contains(dump, k), "an API key is stored in clear text")
			testserver.Must(t, !strings.Contains(dump, k[len("svc_live_"):]), "an API key's random part is stored in clear text")
			testserver.Must(t, strings.Contains(dump, carteiro.HashKey(k)), "the key's hash is not stored")
		}
		testserver.Must(t, !strings.Contains(dump, "PRIVATE KEY"), "a PEM private key is stored in clear text")
		box, err := secrets.NewBox(ts.Config.SecretKey)
		testserver.Must(t, err == nil, "box: %v", err)
		pemKey, err := box.Open(dom.DKIMPrivateKey)
		testserver.Must(t, err == nil, "the stored DKIM key does not open with the service secret: %v", err)
		block, _ := pem.Decode(pemKey)
		testserver.Must(t, block != nil, "sealed DKIM key is not PEM")
		der := base64.StdEncoding.EncodeToString(block.Bytes)
		for i := 0; i+64 <= len(der); i += 64 {
			testserver.Must(t, !strings.Contains(dump, der[i:i+64]), "DKIM private key material is stored in clear text")
		}
		testserver.Must(t, !strings.Contains(dump, ts.Config.SecretKey), "the service secret is stored")
		testserver.Must(t, !strings.Contains(dump, secret), "the TOTP secret is stored in clear text")
	})
}
