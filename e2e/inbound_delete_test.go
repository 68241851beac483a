package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

// TestDeletedInboundEmailLeavesItsWebhookDeliveries (D75): deleting a
// received message also takes it out of the email.received deliveries
// that carried it. A delivery whose first attempt failed has a retry
// pending; after DELETE /inbound-emails/:id, the delivery log, the
// database (what routes and retries read) and the retry itself hold
// nothing of the message (sender, recipients, subject, bodies,
// attachment names), while the retry still comes, signed, with the same
// fields and the deleted message's id. Another message's delivery keeps
// its content.
func TestDeletedInboundEmailLeavesItsWebhookDeliveries(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		r := newInboundRig(t, b, nil)
		r.hook.SetHandler(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) })
		addr := r.mxAddr(t, "shop.example")
		testserver.Must(t, sendSMTP(addr, "mail.sender.example", "joao@sender.example", []string{"orders@shop.example"},
			secretMessage("orders@shop.example")) == nil, "João's message refused")
		testserver.Must(t, sendSMTP(addr, "mail.sender.example", "maria@sender.example", []string{"sales@shop.example"},
			smallMessage("sales@shop.example", "Maria 5512")) == nil, "Maria's message refused")
		// Both first attempts failed and are recorded: retries are pending.
		first := r.receivedHooks(t, 2)
		waitFor(t, func() bool { return recordedAttempts(t, r.ts, r.hookID) >= 2 })
		sawSecret := false
		for _, h := range first {
			sawSecret = sawSecret || h.Data["subject"] == "Pedido secreto sigilo"
		}
		testserver.Must(t, sawSecret, "no webhook carried João's message: %+v", first)
		testserver.Must(t, strings.Contains(testserver.DumpDatabase(t, r.ts.Config.DatabaseURL), "corpo secreto sigilo"),
			"the database does not hold the delivered payload before the delete")
		joao := r.inboundTo(t, "orders@shop.example")
		testserver.Must(t, len(joao) == 1, "received to orders@: %+v", joao)
		id := joao[0].ID

		resp := r.ts.Do(t, testserver.Request{Method: "DELETE", Path: "/v1/product/inbound-emails/" + id, Key: r.ts.LiveKey})
		testserver.Must(t, resp.Status == http.StatusNoContent, "DELETE: %d %s", resp.Status, resp.Body)

		resp = r.ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/webhooks/" + r.hookID + "/deliveries", Key: r.ts.LiveKey})
		testserver.Expect(t, resp, http.StatusOK, "")
		testserver.Must(t, !strings.Contains(string(resp.Body), "sigilo"), "the delivery log still shows the message: %s", resp.Body)
		testserver.Must(t, strings.Count(string(resp.Body), `"eventType":"email.received"`) == 2, "the delivery log lost a delivery: %s", resp.Body)
		dump := testserver.DumpDatabase(t, r.ts.Config.DatabaseURL)
		testserver.Must(t, strings.Contains(dump, "Maria 5512"), "Maria's delivery lost its message")
		if i := strings.Index(dump, "sigilo"); i >= 0 {
			t.Errorf("the database still holds the deleted message: …%s…", dump[max(0, i-300):min(len(dump), i+100)])
		}

		// The pending retries run (D49's first delay is 5 s, jitter 10 %).
		r.hook.Reset()
		r.hook.SetHandler(nil)
		r.ts.Clock.Advance(5*time.Second + 500*time.Millisecond + time.Second)
		retried := r.receivedHooks(t, 2) // signatures checked there
		reqs := r.hook.Requests()
		var sawDeleted, sawMaria bool
		for i, h := range retried {
			body := string(reqs[i].Body)
			testserver.Must(t, !strings.Contains(body, "sigilo") && !strings.Contains(body, "joao@sender.example"),
				"a retry sent the deleted message: %s", body)
			if h.Data["inboundEmailId"] == id {
				sawDeleted = true
				want := map[string]any{"from": "erased@erased.invalid", "to": []any{}, "cc": []any{}, "subject": "", "text": "",
					"html": "", "attachments": []any{}, "inReplyToEmailId": nil}
				for k, v := range want {
					got, _ := json.Marshal(h.Data[k])
					exp, _ := json.Marshal(v)
					testserver.Must(t, string(got) == string(exp), "retry's data.%s = %s, want %s", k, got, exp)
				}
				testserver.Must(t, h.Type == "email.received" && h.Data["spf"] != nil, "retry lost its shape: %s", body)
			}
			sawMaria = sawMaria || h.Data["subject"] == "Maria 5512"
		}
		testserver.Must(t, sawDeleted && sawMaria, "retries: %+v", retried)
	})
}
