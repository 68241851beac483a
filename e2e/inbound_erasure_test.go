package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/carteiro/carteiro/internal/testserver"
)

// secretMessage is a message from joao@sender.example whose every part
// carries the marker sigilo (not a hexadecimal word, so no id in a
// database dump can contain it by chance): display name, subject, text,
// html, the name of its attachment and a Cc.
func secretMessage(to string) []byte {
	return []byte("From: Joao Markersigilo <joao@sender.example>\r\nTo: Support <" + to + ">\r\nCc: anasigilo@other.example\r\n" +
		"Subject: Pedido secreto sigilo\r\nMessage-ID: <msigilo@sender.example>\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/mixed; boundary=\"outer\"\r\n\r\n" +
		"--outer\r\nContent-Type: multipart/alternative; boundary=\"alt\"\r\n\r\n" +
		"--alt\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\ncorpo secreto sigilo\r\n" +
		"--alt\r\nContent-Type: text/html; charset=UTF-8\r\n\r\n<p>html secreto sigilo</p>\r\n--alt--\r\n" +
		"--outer\r\nContent-Type: application/pdf; name=\"segredo-sigilo.pdf\"\r\n" +
		"Content-Disposition: attachment; filename=\"segredo-sigilo.pdf\"\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQK\r\n--outer--\r\n")
}

// TestErasureRemovesReceivedMessagesFromWebhookLogs (D78, D75): erasing a
// person deletes the messages received from them, and the email.received
// webhook deliveries that carried those messages keep nothing of them:
// no table of the database (so no route, and no retry of the delivery)
// holds their sender, recipients, subject, bodies or attachment names
// afterwards; the deliveries stay in the log. Another sender's message
// keeps its delivery as it was.
func TestErasureRemovesReceivedMessagesFromWebhookLogs(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		r := newInboundRig(t, b, nil)
		addr := r.mxAddr(t, "shop.example")
		testserver.Must(t, sendSMTP(addr, "mail.sender.example", "joao@sender.example", []string{"orders@shop.example"},
			secretMessage("orders@shop.example")) == nil, "João's message refused")
		testserver.Must(t, sendSMTP(addr, "mail.sender.example", "maria@sender.example", []string{"orders@shop.example"},
			smallMessage("orders@shop.example", "Maria 5512")) == nil, "Maria's message refused")
		hooks := r.receivedHooks(t, 2)
		sawSecret := false
		for _, h := range hooks {
			sawSecret = sawSecret || h.Data["subject"] == "Pedido secreto sigilo"
		}
		testserver.Must(t, sawSecret, "no webhook carried João's message: %+v", hooks)
		deliveries := func() string {
			resp := r.ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/webhooks/" + r.hookID + "/deliveries", Key: r.ts.LiveKey})
			testserver.Expect(t, resp, http.StatusOK, "")
			return string(resp.Body)
		}
		// The log's route shows no payload; the stored one is what a retry
		// or a resumed webhook sends again, so it must go too.
		testserver.Must(t, strings.Contains(testserver.DumpDatabase(t, r.ts.Config.DatabaseURL), "corpo secreto sigilo"),
			"the database does not hold the delivered payload before the erasure")

		resp := r.ts.Do(t, testserver.Request{Method: "POST", Path: erasePath, Key: r.ts.LiveKey, Body: map[string]any{"email": "joao@sender.example"}})
		testserver.Expect(t, resp, http.StatusOK, "")
		testserver.Must(t, resp.JSON(t)["inboundDeleted"] == float64(1), "erase answered %s", resp.Body)

		log := deliveries()
		testserver.Must(t, !strings.Contains(log, "sigilo") && !strings.Contains(strings.ToLower(log), "joao@sender.example"),
			"the delivery log still shows João's message: %s", log)
		testserver.Must(t, strings.Count(log, `"eventType":"email.received"`) == 2, "the delivery log lost a delivery: %s", log)
		dump := testserver.DumpDatabase(t, r.ts.Config.DatabaseURL)
		testserver.Must(t, strings.Contains(dump, "Maria 5512") && strings.Contains(dump, "erased@erased.invalid"),
			"Maria's delivery lost its message, or João's delivery is gone")
		// The suppression keeps the address, as not mailing it requires (D78).
		var rows []string
		for _, line := range strings.Split(dump, "\n") {
			if !strings.HasPrefix(line, "suppressions: ") {
				rows = append(rows, line)
			}
		}
		dump = strings.Join(rows, "\n")
		for _, left := range []string{"sigilo", "joao@sender.example"} {
			if i := strings.Index(strings.ToLower(dump), left); i >= 0 {
				t.Errorf("the database still holds %q: …%s…", left, dump[max(0, i-300):min(len(dump), i+100)])
			}
		}
	})
}
