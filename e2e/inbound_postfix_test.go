package e2e

import (
	"bytes"
	"net/http"
	"net/smtp"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

// postfixDelivered is Postfix's log line for a message the inbound MX
// took, with the reply Carteiro gave to DATA.
var postfixDelivered = regexp.MustCompile(`relay=127\.0\.0\.1\[127\.0\.0\.1\]:\d+, .*status=sent \(250 `)

// postfixReceived is the first line of the Received header Postfix adds.
var postfixReceived = regexp.MustCompile(`^Received: from `)

// TestInboundReceivesFromPostfix (D75, issue 28): Postfix, as the sending
// MTA of someone writing to a customer, delivers to an address of an
// enabled domain at the MX the test DNS publishes, over STARTTLS. The
// stored raw message is what was sent after the Received header Postfix
// adds (the Received line alone, nothing rewritten), the parsed fields and
// attachment bytes equal what was sent, and the webhook receiver gets a
// signed email.received for it.
func TestInboundReceivesFromPostfix(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		r := newInboundRig(t, b, nil)
		pf := startPostfixMTA(t, "shop.example", r.mxAddr(t, "shop.example"))

		att := randomBytes(40000)
		raw := receivedMessage("postfix@shop.example", "m4@sender.example", "", att)
		err := smtp.SendMail(pf.addr, nil, "bounce@sender.example", []string{"postfix@shop.example"}, raw)
		testserver.Must(t, err == nil, "hand the message to postfix: %v\n%s", err, pf.log())

		deadline := time.Now().Add(60 * time.Second)
		for !postfixDelivered.MatchString(pf.log()) {
			testserver.Must(t, time.Now().Before(deadline), "postfix did not deliver the message to the MX:\n%s", pf.log())
			time.Sleep(200 * time.Millisecond)
		}
		testserver.Must(t, strings.Contains(pf.log(), "TLS connection established to 127.0.0.1[127.0.0.1]:"), "postfix delivered without TLS:\n%s", pf.log())

		got := r.checkRelayed(t, "postfix@shop.example", raw, att, postfixReceived)
		resp := r.ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/inbound-emails/" + got.ID + "/raw", Key: r.ts.LiveKey})
		testserver.Expect(t, resp, http.StatusOK, "")
		added, _ := relayHeaders(resp.Body, postfixReceived)
		testserver.Must(t, bytes.Contains(added, []byte("by postfix.test (Postfix)")), "the added header is not Postfix's Received: %q", added)
		testserver.Must(t, got.MailFrom == "bounce@sender.example", "envelope sender %q", got.MailFrom)

		hooks := r.receivedHooks(t, 1)
		d := hooks[0].Data
		atts, _ := d["attachments"].([]any)
		testserver.Must(t, hooks[0].Type == "email.received" && d["inboundEmailId"] == got.ID && d["subject"] == "Re: Pedido nº 42" &&
			d["text"] == "Olá, obrigado pelo pedido.\r\n.\r\n..linha com ponto" && len(atts) == 1, "webhook %s %v", hooks[0].Type, d)
	})
}
