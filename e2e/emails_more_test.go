package e2e

import (
	"bytes"
	"net/http"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/testserver"
)

func TestSendingAccessKeys(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, _, _ := relayServer(t, b, nil)
		sending := ts.NewKey(t, app.KeyRequest{OrgID: ts.OrgID, Name: "app server", Mode: carteiro.ModeLive, Permission: carteiro.PermissionSending})
		restricted := ts.NewKey(t, app.KeyRequest{OrgID: ts.OrgID, Name: "news only", Mode: carteiro.ModeLive, Domain: "news.shop.example"})
		mail := map[string]any{"from": "orders@shop.example", "to": "a@customer.example", "subject": "s", "text": "t"}

		// D6: sending_access may send and read what it sent, nothing else.
		own := send(t, ts, sending, mail)
		other := send(t, ts, ts.LiveKey, mail)
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails/" + own.ID, Key: sending}), 200, "")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails/" + other.ID, Key: sending}), 404, "NOT_FOUND")
		r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails", Key: sending})
		testserver.Expect(t, r, 200, "")
		testserver.Must(t, strings.Contains(string(r.Body), own.ID) && !strings.Contains(string(r.Body), other.ID), "sending key lists %s", r.Body)
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/batch", Key: sending, Body: []any{mail}}), 202, "")
		for _, req := range []testserver.Request{
			{Method: "GET", Path: "/v1/product/emails/tags"},
			{Method: "POST", Path: "/v1/product/emails/" + own.ID + "/resend"},
			{Method: "GET", Path: "/v1/product/senders"},
		} {
			req.Key = sending
			testserver.Expect(t, ts.Do(t, req), http.StatusForbidden, "FORBIDDEN")
		}

		// A key restricted to one domain may send only from it (and its subdomains).
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails", Key: restricted, Body: mail}), http.StatusForbidden, "FORBIDDEN")
		news := map[string]any{"from": "hi@news.shop.example", "to": "a@customer.example", "subject": "s", "text": "t"}
		res := send(t, ts, restricted, news)
		e := waitStatus(t, ts, ts.LiveKey, res.ID, "delivered")
		testserver.Must(t, e.APIKey != nil && e.APIKey.Name == "news only", "apiKey %+v", e.APIKey)
	})
}

func TestScheduledEmailSendsAtItsTime(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp, _ := relayServer(t, b, nil)
		at := ts.Clock.Now().Add(3 * time.Hour)
		res := send(t, ts, ts.LiveKey, map[string]any{"from": "orders@shop.example", "to": "a@customer.example",
			"subject": "later", "html": "<h1>Olá</h1><p>See <a href=\"https://shop.example/o/1\">your order</a>.</p>",
			"scheduledAt": at.Format(time.RFC3339Nano)})
		testserver.Must(t, res.Status == "scheduled", "status %s", res.Status)
		e := getEmail(t, ts, ts.LiveKey, res.ID)
		testserver.Must(t, e.Status == "scheduled", "status %s", e.Status)
		time.Sleep(300 * time.Millisecond)
		testserver.Must(t, len(smtp.Messages()) == 0, "sent before its time")

		ts.Clock.Advance(3*time.Hour + time.Second)
		waitStatus(t, ts, ts.LiveKey, res.ID, "delivered")
		msgs := smtp.Messages()
		testserver.Must(t, len(msgs) == 1, "messages: %d", len(msgs))
		// Only html was given: a text part is generated (D20).
		m, err := mail.ReadMessage(bytes.NewReader(msgs[0].Data))
		testserver.Must(t, err == nil, "parse: %v", err)
		parts := walkMIME(t, m.Header.Get("Content-Type"), m.Body)
		testserver.Must(t, strings.Contains(parts["text/plain"], "Olá") && strings.Contains(parts["text/plain"], "your order (https://shop.example/o/1)"),
			"generated text part %q", parts["text/plain"])
		types := eventTypes(events(t, ts, ts.LiveKey, res.ID))
		testserver.Must(t, types[0] == "scheduled" && types[1] == "processing", "timeline %v", types)
	})
}
