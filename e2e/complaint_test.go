package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

const arfTemplate = "From: feedback@arf.example.net\r\n" +
	"To: %[1]s\r\n" +
	"Subject: FW: s\r\n" +
	"MIME-Version: 1.0\r\n" +
	"Content-Type: multipart/report; report-type=feedback-report; boundary=\"arf\"\r\n" +
	"\r\n" +
	"--arf\r\nContent-Type: text/plain\r\n\r\nThis is an email abuse report.\r\n" +
	"--arf\r\nContent-Type: message/feedback-report\r\n\r\n" +
	"Feedback-Type: abuse\r\nUser-Agent: ExampleFBL/1.0\r\nVersion: 1\r\nOriginal-Rcpt-To: %[2]s\r\n" +
	"--arf\r\nContent-Type: message/rfc822\r\n\r\n" +
	"From: orders@shop.example\r\nTo: %[2]s\r\nSubject: s\r\nMessage-ID: <%[3]s>\r\n\r\nhello\r\n" +
	"--arf--\r\n"

// TestComplaintsAndHealth scripts a history: 110 emails delivered, two
// abuse reports (ARF) through the inbound listener, then records removed
// from DNS. The complaint is recorded once per email, suppresses the
// address, and the health diagnostic recommends what the history calls for.
func TestComplaintsAndHealth(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtpSink, d := relayServer(t, b, map[string]string{"CARTEIRO_INBOUND_ADDR": "127.0.0.1:0", "CARTEIRO_DNSBL_LISTS": "none"})
		batch := make([]any, 110)
		for i := range batch {
			batch[i] = map[string]any{"from": "orders@shop.example", "to": fmt.Sprintf("c%d@customer.example", i), "subject": "s", "text": "t"}
		}
		var items []struct {
			Data sendResult `json:"data"`
		}
		for _, part := range [][]any{batch[:100], batch[100:]} {
			r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/batch", Key: ts.LiveKey, Body: part})
			testserver.Expect(t, r, 202, "")
			var got []struct {
				Data sendResult `json:"data"`
			}
			r.Decode(t, &got)
			items = append(items, got...)
		}
		_, err := smtpSink.WaitForMessages(110, 20*time.Second)
		testserver.Must(t, err == nil, "deliveries: %v", err)
		for _, it := range items { // every outcome recorded, so the counters are complete
			waitStatus(t, ts, ts.LiveKey, it.Data.ID, "delivered")
		}

		// Two recipients complain; one report arrives twice. Each goes to
		// the return path its email was sent with.
		returnPaths := map[string]string{}
		for _, m := range smtpSink.Messages() {
			returnPaths[m.To[0]] = m.From
		}
		for _, i := range []int{3, 7, 7} {
			rcpt := fmt.Sprintf("c%d@customer.example", i)
			returnPath := returnPaths[rcpt]
			arf := fmt.Sprintf(arfTemplate, returnPath, rcpt, items[i].Data.ID+"@shop.example")
			testserver.Must(t, sendSMTP(ts.InboundAddr(), "mta.sender.test", "", []string{returnPath}, []byte(arf)) == nil, "ARF refused")
		}
		e := waitStatus(t, ts, ts.LiveKey, items[7].Data.ID, "delivered")
		waitFor(t, func() bool { return getEmail(t, ts, ts.LiveKey, items[7].Data.ID).ComplainedAt != nil })
		e = getEmail(t, ts, ts.LiveKey, items[7].Data.ID)
		complained := findEvents(events(t, ts, ts.LiveKey, e.ID), "complained")
		testserver.Must(t, len(complained) == 1 && complained[0].Metadata["feedbackType"] == "abuse", "complaint events %+v", complained)
		r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/suppressions?reason=complaint", Key: ts.LiveKey})
		testserver.Must(t, strings.Count(string(r.Body), `"reason":"complaint"`) == 2, "complaint suppressions %s", r.Body)
		waitFor(t, func() bool { return getEmail(t, ts, ts.LiveKey, items[3].Data.ID).ComplainedAt != nil })

		// The DKIM and ownership records vanish from DNS.
		ts.DNS.RemoveName("cart1._domainkey.shop.example")
		ts.DNS.RemoveName("_carteiro.shop.example")
		ts.DNS.RemoveName("bounces.shop.example")
		r = ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/domains/" + d.ID + "/health", Key: ts.LiveKey})
		testserver.Expect(t, r, 200, "")
		h := r.JSON(t)
		var codes []string
		for _, rec := range h["recommendations"].([]any) {
			m := rec.(map[string]any)
			codes = append(codes, m["code"].(string)+":"+m["severity"].(string))
		}
		got := strings.Join(codes, ",")
		for _, want := range []string{"high_complaint_rate:critical", "publish_dkim:", "publish_ownership:", "publish_spf:"} {
			testserver.Must(t, strings.Contains(got, want), "recommendations %s lack %s", got, want)
		}
		m := h["metrics"].(map[string]any)
		testserver.Must(t, m["sent"] == float64(110) && m["complaintRate"].(float64) > 0.018 && m["complaintRate"].(float64) < 0.019, "metrics %v", m)
		testserver.Must(t, h["score"].(float64) <= 25, "score %v", h["score"])
	})
}
