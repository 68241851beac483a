package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

const dsnTemplate = "From: MAILER-DAEMON@mx.customer.example\r\n" +
	"To: %[1]s\r\n" +
	"Subject: Undelivered Mail Returned to Sender\r\n" +
	"MIME-Version: 1.0\r\n" +
	"Content-Type: multipart/report; report-type=delivery-status; boundary=\"b1\"\r\n" +
	"\r\n" +
	"--b1\r\nContent-Type: text/plain\r\n\r\nYour message could not be delivered.\r\n" +
	"--b1\r\nContent-Type: message/delivery-status\r\n\r\n" +
	"Reporting-MTA: dns; mx.customer.example\r\n\r\n" +
	"Final-Recipient: rfc822; %[2]s\r\nAction: failed\r\nStatus: 5.1.1\r\n" +
	"Diagnostic-Code: smtp; 550 5.1.1 <%[2]s>: Recipient address rejected: User unknown\r\n" +
	"--b1\r\nContent-Type: text/rfc822-headers\r\n\r\n" +
	"From: orders@shop.example\r\nTo: %[2]s\r\nSubject: s\r\nMessage-ID: <%[3]s>\r\n" +
	"--b1--\r\n"

// TestBounceComesBackOverSMTP: an email is delivered, a DSN for it arrives
// at the inbound listener over SMTP, and the API shows the bounce, the
// timeline event and the suppression; the webhook arrives; a later email
// to that address is skipped (D46, D55).
func TestBounceComesBackOverSMTP(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		rcv := testutil.NewTLSReceiver(t, nil)
		ts, smtpSink, _ := relayServer(t, b, map[string]string{"CARTEIRO_INBOUND_ADDR": "127.0.0.1:0",
			"CARTEIRO_WEBHOOK_ALLOW_PRIVATE": "true", "CARTEIRO_WEBHOOK_CA_FILE": rcv.CAFile()})
		createHook(t, ts, rcv.URL(), []string{"email.bounced", "email.suppressed"}, "")
		res := send(t, ts, ts.LiveKey, map[string]any{"from": "orders@shop.example", "to": "ghost@customer.example", "subject": "s", "text": "t"})
		waitStatus(t, ts, ts.LiveKey, res.ID, "delivered")
		msgs := smtpSink.Messages()
		returnPath := msgs[0].From

		// Mail for other domains is refused at RCPT.
		err := sendSMTP(ts.InboundAddr(), "mta.sender.test", "", []string{"postmaster@elsewhere.example"}, []byte("Subject: x\r\n\r\nx\r\n"))
		testserver.Must(t, err != nil && strings.Contains(err.Error(), "550"), "foreign recipient: %v", err)

		dsn := fmt.Sprintf(dsnTemplate, returnPath, "ghost@customer.example", res.ID+"@shop.example")
		err = sendSMTP(ts.InboundAddr(), "mta.sender.test", "", []string{returnPath}, []byte(dsn))
		testserver.Must(t, err == nil, "DSN refused: %v", err)

		e := waitStatus(t, ts, ts.LiveKey, res.ID, "bounced")
		testserver.Must(t, e.BouncedAt != nil, "bouncedAt")
		bounced := findEvents(events(t, ts, ts.LiveKey, res.ID), "bounced")
		testserver.Must(t, len(bounced) == 1 && bounced[0].Metadata["bounceType"] == "hard" && bounced[0].Metadata["enhancedCode"] == "5.1.1" &&
			bounced[0].Metadata["recipient"] == "ghost@customer.example", "bounced event %+v", bounced)
		r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/suppressions?email=ghost", Key: ts.LiveKey})
		testserver.Must(t, strings.Contains(string(r.Body), `"reason":"mailbox_not_found"`), "suppression %s", r.Body)
		reqs, err := rcv.WaitForRequests(1, 10*time.Second)
		testserver.Must(t, err == nil && strings.Contains(string(reqs[0].Body), `"type":"email.bounced"`), "bounce webhook: %v", err)

		// The same DSN twice records nothing new.
		testserver.Must(t, sendSMTP(ts.InboundAddr(), "mta.sender.test", "", []string{returnPath}, []byte(dsn)) == nil, "second DSN")
		time.Sleep(200 * time.Millisecond)
		testserver.Must(t, len(findEvents(events(t, ts, ts.LiveKey, res.ID), "bounced")) == 1, "a repeated DSN bounced twice")

		later := send(t, ts, ts.LiveKey, map[string]any{"from": "orders@shop.example", "to": "ghost@customer.example", "subject": "again", "text": "t"})
		waitStatus(t, ts, ts.LiveKey, later.ID, "skipped")
		_, err = rcv.WaitForRequests(2, 10*time.Second) // email.bounced, then email.suppressed
		testserver.Must(t, err == nil, "suppressed webhook missing: %v", err)
	})
}
