package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

// TestInboundThreadingDeleteEraseRetention (D75, D78): a reply naming an
// email the organization sent links to it (inReplyToEmailId, in the API
// and the webhook); DELETE removes the message, its raw bytes and parts;
// erasing a person deletes the messages from that address; and after
// CARTEIRO_INBOUND_RETENTION (a moved clock) the purge deletes the rest.
func TestInboundThreadingDeleteEraseRetention(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		r := newInboundRig(t, b, map[string]string{"CARTEIRO_INBOUND_RETENTION": "30d"})
		addr := r.mxAddr(t, "shop.example")
		sent := send(t, r.ts, r.ts.LiveKey, map[string]any{"from": "orders@shop.example", "to": "joao@sender.example", "subject": "Pedido 42", "text": "t"})
		waitStatus(t, r.ts, r.ts.LiveKey, sent.ID, "delivered")
		msgs := r.sink.Messages()
		testserver.Must(t, len(msgs) == 1, "sent %d messages", len(msgs))
		messageID := sent.ID + "@shop.example"

		// A reply: In-Reply-To names the sent email.
		att := randomBytes(500)
		reply := receivedMessage("orders@shop.example", "reply1@sender.example", messageID, att)
		testserver.Must(t, sendSMTP(addr, "mail.sender.example", "joao@sender.example", []string{"orders@shop.example"}, reply) == nil, "reply refused")
		// Not a reply: references an id that is no email of the organization.
		other := receivedMessage("orders@shop.example", "reply2@sender.example", "01234567-89ab-7def-8123-456789abcdef@shop.example", att)
		testserver.Must(t, sendSMTP(addr, "mail.sender.example", "joao@sender.example", []string{"orders@shop.example"}, other) == nil, "second refused")
		// From someone else.
		testserver.Must(t, sendSMTP(addr, "mail.sender.example", "maria@sender.example", []string{"orders@shop.example"},
			smallMessage("orders@shop.example", "maria")) == nil, "third refused")
		var list []inboundItem
		waitFor(t, func() bool { list = r.inboundTo(t, "orders@shop.example"); return len(list) == 3 })
		byMessageID := map[string]inboundItem{}
		for _, item := range list {
			if item.MessageID != nil {
				byMessageID[*item.MessageID] = item
			}
		}
		linked := byMessageID["reply1@sender.example"]
		testserver.Must(t, linked.InReplyToEmailID != nil && *linked.InReplyToEmailID == sent.ID, "reply not linked: %+v", linked.InReplyToEmailID)
		testserver.Must(t, byMessageID["reply2@sender.example"].InReplyToEmailID == nil, "a foreign reference linked")
		hooks := r.receivedHooks(t, 3)
		found := false
		for _, h := range hooks {
			if h.Data["inboundEmailId"] == linked.ID {
				found = h.Data["inReplyToEmailId"] == sent.ID
			}
		}
		testserver.Must(t, found, "webhook without inReplyToEmailId")

		// POST /webhooks/:id/test sends a made-up email.received (D52).
		resp := r.ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/webhooks/" + r.hookID + "/test", Key: r.ts.LiveKey,
			Body: map[string]any{"eventType": "email.received"}})
		testserver.Must(t, resp.Status/100 == 2, "test event: %d %s", resp.Status, resp.Body)
		hooks = r.receivedHooks(t, 4)
		test := hooks[3]
		testserver.Must(t, test.Type == "email.received" && test.Data["test"] == true && test.Data["inboundEmailId"] != nil &&
			test.Data["subject"] == "Carteiro webhook test", "test event %+v", test)

		// Filters and the cursor.
		resp = r.ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/inbound-emails?fromAddress=SOMEONE&limit=5", Key: r.ts.LiveKey})
		testserver.Expect(t, resp, http.StatusOK, "")
		var page struct {
			InboundEmails []inboundItem `json:"inboundEmails"`
			NextCursor    *string       `json:"nextCursor"`
		}
		resp.Decode(t, &page)
		testserver.Must(t, len(page.InboundEmails) == 1 && page.InboundEmails[0].Subject == "maria", "fromAddress filter %+v", page.InboundEmails)
		resp = r.ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/inbound-emails?limit=0", Key: r.ts.LiveKey})
		testserver.Expect(t, resp, http.StatusUnprocessableEntity, "VALIDATION_ERROR")

		// Another organization sees none of it.
		_, otherKey, _ := r.ts.NewOrg(t, "Other")
		resp = r.ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/inbound-emails/" + linked.ID, Key: otherKey})
		testserver.Expect(t, resp, http.StatusNotFound, "NOT_FOUND")

		// DELETE removes the message, its raw bytes and its parts.
		id := byMessageID["reply2@sender.example"].ID
		resp = r.ts.Do(t, testserver.Request{Method: "DELETE", Path: "/v1/product/inbound-emails/" + id, Key: r.ts.LiveKey})
		testserver.Must(t, resp.Status == http.StatusNoContent, "DELETE: %d %s", resp.Status, resp.Body)
		for _, path := range []string{"", "/raw", "/attachments/1"} {
			resp = r.ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/inbound-emails/" + id + path, Key: r.ts.LiveKey})
			testserver.Expect(t, resp, http.StatusNotFound, "NOT_FOUND")
		}
		resp = r.ts.Do(t, testserver.Request{Method: "DELETE", Path: "/v1/product/inbound-emails/" + id, Key: r.ts.LiveKey})
		testserver.Expect(t, resp, http.StatusNotFound, "NOT_FOUND")
		dump := testserver.DumpDatabase(t, r.ts.Config.DatabaseURL)
		// Its Message-ID is in its row, its parts and its raw bytes, and in
		// no webhook payload.
		testserver.Must(t, !strings.Contains(dump, "reply2@sender.example"), "the deleted message is still in the database")

		// Erasing João deletes his messages (one left after the DELETE).
		resp = r.ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/privacy/erase", Key: r.ts.LiveKey, Body: map[string]any{"email": "JOAO@sender.example"}})
		testserver.Expect(t, resp, http.StatusOK, "")
		testserver.Must(t, resp.JSON(t)["inboundDeleted"] == float64(1), "erase answer %s", resp.Body)
		list = r.inboundTo(t, "orders@shop.example")
		testserver.Must(t, len(list) == 1 && list[0].Subject == "maria", "after the erasure %+v", list)

		// Retention: 29 days keep it, 31 days delete it.
		r.ts.Clock.Advance(29 * 24 * time.Hour)
		purgeNow(t, r.ts)
		time.Sleep(2 * time.Second)
		testserver.Must(t, len(r.inboundTo(t, "orders@shop.example")) == 1, "purged before its time")
		r.ts.Clock.Advance(2 * 24 * time.Hour)
		purgeNow(t, r.ts)
		waitFor(t, func() bool { return len(r.inboundTo(t, "orders@shop.example")) == 0 })
		// Counted in /metrics, like the other purges, when the pass ends;
		// the DELETE and the erasure above are not purges.
		waitFor(t, func() bool {
			return strings.Contains(metricsBody(t, r.ts), `carteiro_retention_purged_total{kind="inbound_email"} 1`)
		})
		dump = testserver.DumpDatabase(t, r.ts.Config.DatabaseURL)
		testserver.Must(t, !strings.Contains(dump, "maria@sender.example") && !strings.Contains(dump, "Subject: maria"),
			"the purged message is still in the database")
	})
}
