package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/carteiro/carteiro/internal/testserver"
)

// TestErasureReplacesSubmittedMessageIDs (D78, D74, D75): a message
// submitted over SMTP keeps the Message-ID its client wrote, which may
// hold the recipient's address. Erasing that address leaves it in no
// table of the database (the email's record, the Message-ID index of
// migration 0022): the email shows the Message-ID the service would have
// written, <email id@sender domain>, and a reply naming the old one no
// longer links to the email. Another email's Message-ID stays.
func TestErasureReplacesSubmittedMessageIDs(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		r := newInboundRig(t, b, map[string]string{"CARTEIRO_SUBMISSION_ADDR": "127.0.0.1:0"})
		c := authedClient(t, r.ts, r.ts.LiveKey)
		submit := func(to, messageID string) string {
			t.Helper()
			msg := "From: orders@shop.example\r\nTo: " + to + "\r\nSubject: pedido\r\nMessage-ID: <" + messageID + ">\r\n\r\nolá\r\n"
			reply := transact(t, c, "orders@shop.example", []string{to}, msg)
			m := queuedReply.FindStringSubmatch(reply)
			testserver.Must(t, m != nil, "submission: %s", reply)
			waitStatus(t, r.ts, r.ts.LiveKey, m[1], "delivered")
			return m[1]
		}
		const anaID, otherID = "abc.ana@customer.example", "keep-9931@mua.shop.example"
		ana := submit("ana@customer.example", anaID)
		other := submit("bia@customer.example", otherID)
		messageID := func(id string) string {
			resp := r.ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails/" + id, Key: r.ts.LiveKey})
			testserver.Expect(t, resp, http.StatusOK, "")
			got, _ := resp.JSON(t)["messageId"].(string)
			return got
		}
		testserver.Must(t, messageID(ana) == anaID, "submitted Message-ID not kept: %q", messageID(ana))
		testserver.Must(t, strings.Contains(testserver.DumpDatabase(t, r.ts.Config.DatabaseURL), "email_message_ids: "),
			"the dump does not list email_message_ids")

		resp := r.ts.Do(t, testserver.Request{Method: "POST", Path: erasePath, Key: r.ts.LiveKey, Body: map[string]any{"email": "ana@customer.example"}})
		testserver.Expect(t, resp, http.StatusOK, "")
		testserver.Must(t, resp.JSON(t)["emailsRedacted"] == float64(1), "erase answered %s", resp.Body)

		testserver.Must(t, messageID(ana) == ana+"@shop.example", "erased email's Message-ID is %q, want %q", messageID(ana), ana+"@shop.example")
		testserver.Must(t, messageID(other) == otherID, "another email's Message-ID changed: %q", messageID(other))
		dump := testserver.DumpDatabase(t, r.ts.Config.DatabaseURL)
		if i := strings.Index(strings.ToLower(dump), anaID); i >= 0 {
			t.Errorf("the database still holds the erased Message-ID: …%s…", dump[max(0, i-300):min(len(dump), i+100)])
		}
		testserver.Must(t, strings.Contains(dump, otherID), "the other email's Message-ID is gone from the database")

		// A reply naming the old Message-ID links to nothing; one naming
		// the kept one still links.
		addr := r.mxAddr(t, "shop.example")
		for to, ref := range map[string]string{"a@shop.example": anaID, "b@shop.example": otherID} {
			raw := "From: someone@sender.example\r\nTo: " + to + "\r\nSubject: re\r\nIn-Reply-To: <" + ref + ">\r\n\r\nok\r\n"
			testserver.Must(t, sendSMTP(addr, "mail.sender.example", "someone@sender.example", []string{to}, []byte(raw)) == nil, "reply refused")
		}
		for to, want := range map[string]string{"a@shop.example": "", "b@shop.example": other} {
			list := r.inboundTo(t, to)
			testserver.Must(t, len(list) == 1, "received to %s: %+v", to, list)
			got := ""
			if list[0].InReplyToEmailID != nil {
				got = *list[0].InReplyToEmailID
			}
			testserver.Must(t, got == want, "reply to %s linked to %q, want %q", to, got, want)
		}
	})
}
