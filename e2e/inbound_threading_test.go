package e2e

import (
	"bytes"
	"testing"

	"github.com/carteiro/carteiro/internal/testserver"
)

// TestInboundThreadsRepliesToSubmittedMessages (D74, D75): a message
// submitted over SMTP keeps the Message-ID its client wrote; a reply whose
// In-Reply-To names it, and another whose References alone names it, link
// to that email in the API and the webhook, while a reply naming a
// Message-ID that no email of the organization has links to nothing.
func TestInboundThreadsRepliesToSubmittedMessages(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		r := newInboundRig(t, b, map[string]string{"CARTEIRO_SUBMISSION_ADDR": "127.0.0.1:0"})
		c := authedClient(t, r.ts, r.ts.LiveKey)
		reply := transact(t, c, "orders@shop.example", []string{"ana@customer.example"}, submittedMessage("orders@shop.example"))
		m := queuedReply.FindStringSubmatch(reply)
		testserver.Must(t, m != nil, "submission: %s", reply)
		sentID := m[1]
		waitStatus(t, r.ts, r.ts.LiveKey, sentID, "delivered")
		const submittedID = "order-42.abc@mua.shop.example" // submittedMessage's own

		addr := r.mxAddr(t, "shop.example")
		att := randomBytes(200)
		send := func(to, messageID string, raw []byte) {
			t.Helper()
			err := sendSMTP(addr, "mail.customer.example", "ana@customer.example", []string{to}, raw)
			testserver.Must(t, err == nil, "reply %s refused: %v", messageID, err)
		}
		send("support@shop.example", "a1@customer.example", receivedMessage("support@shop.example", "a1@customer.example", submittedID, att))
		// receivedMessage puts its In-Reply-To last in References: here
		// In-Reply-To names a stranger's message and References ours.
		refsOnly := receivedMessage("refs@shop.example", "a2@customer.example", "elsewhere@customer.example", att)
		refsOnly = bytes.Replace(refsOnly, []byte("References: <older@sender.example> <elsewhere@customer.example>"),
			[]byte("References: <"+submittedID+"> <elsewhere@customer.example>"), 1)
		testserver.Must(t, bytes.Contains(refsOnly, []byte(submittedID)), "References not rewritten")
		send("refs@shop.example", "a2@customer.example", refsOnly)
		send("none@shop.example", "a3@customer.example", receivedMessage("none@shop.example", "a3@customer.example", "order-43.abc@mua.shop.example", att))

		for _, to := range []string{"support@shop.example", "refs@shop.example", "none@shop.example"} {
			var list []inboundItem
			waitFor(t, func() bool { list = r.inboundTo(t, to); return len(list) == 1 })
			got := ""
			if list[0].InReplyToEmailID != nil {
				got = *list[0].InReplyToEmailID
			}
			want := sentID
			if to == "none@shop.example" {
				want = ""
			}
			testserver.Must(t, got == want, "reply to %s linked to %q, want %q", to, got, want)
		}
		linked := 0
		for _, h := range r.receivedHooks(t, 3) {
			if h.Data["inReplyToEmailId"] == sentID {
				linked++
			}
		}
		testserver.Must(t, linked == 2, "%d webhooks with inReplyToEmailId %s, want 2", linked, sentID)
	})
}
