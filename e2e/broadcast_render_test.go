package e2e

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

// offerTemplate renders for every contact but one: the template itself
// throws for a first name it cannot handle, as customer code may.
const offerTemplate = `export default function Offer({ contact }: { contact: { firstName?: string } }) {
  if (contact.firstName === "Boom") throw new Error("no offer for " + contact.firstName);
  return <p>Oferta para {contact.firstName}</p>;
}`

// D37: a broadcast contact whose email fails to render at send time gets
// that email, failed with the render error, visible in GET /emails with a
// failed event and counted in the statistics; the other contacts receive
// theirs and the broadcast still ends sent.
//
// Not parallel, as TestReactEmailTemplates: it renders React Email (or
// formats with Prettier) in goja within the 2 s limit.
func TestBroadcastContactWhoseEmailCannotRender(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp, _ := relayServer(t, b, nil)
		r := templateReq(ts, t, "POST", "", map[string]any{"name": "offer", "format": "react", "html": offerTemplate})
		testserver.Expect(t, r, 201, "")
		templateID := r.JSON(t)["id"].(string)
		aud := newAudience(t, ts, []map[string]any{
			{"email": "ana@customer.example", "firstName": "Ana"},
			{"email": "boom@customer.example", "firstName": "Boom"},
			{"email": "boom2@customer.example", "firstName": "Boom"},
		})
		r = broadcastReq(t, ts, ts.LiveKey, "POST", "", map[string]any{"audienceId": aud, "fromEmail": "news@shop.example",
			"subject": "Oferta", "templateId": templateID})
		testserver.Expect(t, r, 201, "")
		id := r.JSON(t)["id"].(string)
		testserver.Expect(t, broadcastReq(t, ts, ts.LiveKey, "POST", "/"+id+"/send", nil), 202, "")
		done := waitBroadcast(t, ts, ts.LiveKey, id, "sent")
		testserver.Must(t, done["recipientsTotal"] == 3.0 && done["recipientsQueued"] == 1.0 && done["recipientsFailed"] == 2.0,
			"counters %v", done)

		msgs, err := smtp.WaitForMessages(1, 15*time.Second)
		testserver.Must(t, err == nil && len(msgs) == 1 && msgs[0].To[0] == "ana@customer.example", "%d messages: %v", len(msgs), err)
		_, parts := parseMessage(t, msgs[0])
		testserver.Must(t, strings.Contains(parts["text/html"], "Oferta para <!-- -->Ana"), "ana's email %q", parts["text/html"])

		// Two failed contacts in one fan-out step: their failures are
		// recorded together, and each gets its own email and event.
		for _, addr := range []string{"boom@customer.example", "boom2@customer.example"} {
			list := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails?recipient=" + url.QueryEscape(addr), Key: ts.LiveKey})
			testserver.Expect(t, list, 200, "")
			data := list.JSON(t)["emails"].([]any)
			testserver.Must(t, len(data) == 1, "emails of the failed contact %s: %s", addr, list.Body)
			failed := data[0].(map[string]any)
			lastError, _ := failed["lastError"].(string)
			testserver.Must(t, failed["status"] == "failed" && failed["failedAt"] != nil && failed["subject"] == "Oferta" &&
				strings.HasPrefix(lastError, "TEMPLATE_RENDER_ERROR") && strings.Contains(lastError, "no offer for Boom"),
				"failed email %v", failed)
			evs := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails/" + failed["id"].(string) + "/events", Key: ts.LiveKey})
			testserver.Expect(t, evs, 200, "")
			testserver.Must(t, strings.Count(string(evs.Body), `"type":"failed"`) == 1 && strings.Contains(string(evs.Body), "no offer for Boom") &&
				strings.Contains(string(evs.Body), addr), "events of %s: %s", addr, evs.Body)
		}

		stats := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/stats?granularity=day", Key: ts.LiveKey})
		testserver.Expect(t, stats, 200, "")
		totals := stats.JSON(t)["totals"].(map[string]any)
		testserver.Must(t, totals["failed"] == 2.0, "stats totals %v", totals)
	})
}
