package e2e

import (
	"strconv"
	"strings"
	"testing"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// heloServer delivers directly to an MX that refuses a HELO without a dot
// at RCPT, as Postfix with reject_non_fqdn_helo_hostname does (D68).
func heloServer(t *testing.T, b testserver.Backend, smtp *testutil.SMTPServer, helo string) *testserver.TestServer {
	t.Helper()
	ts := testserver.StartServer(t, b, map[string]string{
		"CARTEIRO_DELIVERY": "direct", "CARTEIRO_DIRECT_PORT": strconv.Itoa(smtp.Port()), "CARTEIRO_SMTP_TIMEOUT": "2s",
		"CARTEIRO_HELO_NAME": helo,
	})
	d := createDomain(t, ts, ts.LiveKey, "shop.example")
	publish(ts, d)
	testserver.Must(t, verify(t, ts, ts.LiveKey, d.ID).Status == "verified", "domain not verified")
	ts.DNS.SetMX("customer.example", testutil.MX{Host: "mx.customer.example", Pref: 10})
	ts.DNS.SetA("mx.customer.example", "127.0.0.1")
	return ts
}

// TestRefusedHeloFailsWithoutSuppressing: a receiver refusing Carteiro's
// short EHLO name answers 504 5.5.2 at RCPT. That blames the sender's
// configuration, not the recipient (D69): the email fails with the reply,
// nothing is suppressed; with CARTEIRO_HELO_NAME set to a fully qualified
// name the same server accepts (D68).
func TestRefusedHeloFailsWithoutSuppressing(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		smtp := testutil.NewSMTPServer(t, testutil.RefuseNonFQDNHelo())
		ts := heloServer(t, b, smtp, "vm")
		res := send(t, ts, ts.LiveKey, map[string]any{"from": "orders@shop.example", "to": "carol@customer.example", "subject": "helo", "text": "t"})
		e := waitStatus(t, ts, ts.LiveKey, res.ID, "failed", "bounced", "delivered")
		testserver.Must(t, e.Status == "failed", "status %s, want failed (D69)", e.Status)
		testserver.Must(t, e.LastError != nil && strings.Contains(*e.LastError, "504 5.5.2") && strings.Contains(*e.LastError, "Helo command rejected"),
			"lastError %v", e.LastError)
		evs := events(t, ts, ts.LiveKey, res.ID)
		failed := findEvents(evs, "failed")
		testserver.Must(t, len(failed) == 1 && strings.Contains(failed[0].Metadata["error"].(string), "504 5.5.2"), "failed events %+v", failed)
		testserver.Must(t, len(findEvents(evs, "bounced")) == 0, "a refused HELO is no bounce: %v", eventTypes(evs))
		r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/suppressions", Key: ts.LiveKey})
		testserver.Expect(t, r, 200, "")
		testserver.Must(t, !strings.Contains(string(r.Body), "carol@customer.example"), "suppressed after a refused HELO: %s", r.Body)
		testserver.Must(t, len(smtp.Messages()) == 0, "nothing accepted")

		// The same receiver accepts a fully qualified name.
		ts2 := heloServer(t, b, smtp, "mail.shop.example")
		res = send(t, ts2, ts2.LiveKey, map[string]any{"from": "orders@shop.example", "to": "carol@customer.example", "subject": "helo", "text": "t"})
		waitStatus(t, ts2, ts2.LiveKey, res.ID, "delivered")
		msgs := smtp.Messages()
		testserver.Must(t, len(msgs) == 1 && msgs[0].Helo == "mail.shop.example", "accepted %+v", msgs)
	})
}
