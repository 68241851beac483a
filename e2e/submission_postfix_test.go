package e2e

import (
	"bytes"
	"net/http"
	"net/mail"
	"net/smtp"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

// postfixSent is Postfix's log line for a message its smarthost took,
// with the reply Carteiro gave to DATA.
var postfixSent = regexp.MustCompile(`relay=127\.0\.0\.1\[127\.0\.0\.1\]:\d+, .*status=sent \(250 2\.0\.0 queued id=([0-9a-f-]{36})\)`)

// TestSubmissionPostfixSmarthost (D74, issue 27): Postfix as a smarthost
// client, configured as docs/smtp.md says (relayhost, SASL with the API key
// as password, TLS required), relays what an application hands it to
// Carteiro. The application talks to Postfix only; the message reaches the
// relay signed with the domain's DKIM key, with its inline image and
// attachment intact, and the email is in GET /emails.
func TestSubmissionPostfixSmarthost(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, sink := submissionServer(t, b, nil)
		pf := startPostfix(t, ts.SubmissionAddr(), "postfix-relay", ts.LiveKey)

		rcpts := []string{"ana@customer.example", "carlos@customer.example", "audit@shop.example"}
		err := smtp.SendMail(pf.addr, nil, "orders@shop.example", rcpts, []byte(submittedMessage("orders@shop.example")))
		testserver.Must(t, err == nil, "hand the message to postfix: %v", err)

		var id string
		deadline := time.Now().Add(60 * time.Second)
		for id == "" {
			if m := postfixSent.FindStringSubmatch(pf.log()); m != nil {
				id = m[1]
				break
			}
			testserver.Must(t, time.Now().Before(deadline), "postfix did not relay the message to carteiro:\n%s", pf.log())
			time.Sleep(200 * time.Millisecond)
		}
		testserver.Must(t, strings.Contains(pf.log(), "TLS connection established to 127.0.0.1[127.0.0.1]:"), "postfix relayed without TLS:\n%s", pf.log())

		msgs, err := sink.WaitForMessages(3, 20*time.Second)
		testserver.Must(t, err == nil, "not every recipient's message reached the relay: %v", err)
		data := msgs[0].Data
		verifyDKIM(t, ts, data)
		testserver.Must(t, !bytes.Contains(data, []byte("audit@shop.example")), "the bcc address is in the message")
		msg, err := mail.ReadMessage(bytes.NewReader(data))
		testserver.Must(t, err == nil, "parse: %v", err)
		testserver.Must(t, msg.Header.Get("Message-Id") == "<order-42.abc@mua.shop.example>", "Message-ID %q not kept", msg.Header.Get("Message-Id"))
		mustHaveSubmittedParts(t, msg)

		e := waitStatus(t, ts, ts.LiveKey, id, "delivered")
		testserver.Must(t, e.APIKey != nil && e.APIKey.ID != "", "email has no apiKey: %+v", e)
		testserver.Must(t, len(e.Bcc) == 1 && e.Bcc[0] == "audit@shop.example", "bcc %v", e.Bcc)
		r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails", Key: ts.LiveKey})
		testserver.Expect(t, r, http.StatusOK, "")
		testserver.Must(t, bytes.Contains(r.Body, []byte(`"`+id+`"`)), "GET /emails does not list %s: %s", id, r.Body)
	})
}
