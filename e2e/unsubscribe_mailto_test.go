package e2e

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

// listUnsubscribeRE is D71's header: the one-click link, then the mailto
// address with its compact token.
var listUnsubscribeRE = regexp.MustCompile(`^<(https?://[^>]+/u/[^>]+)>, <mailto:(unsubscribe\+([a-z2-7]+)@([^>]+))>$`)

// D43, D71: a broadcast's List-Unsubscribe carries a mailto address at the
// bounce host; a message to it, received by the inbound listener over
// SMTP, unsubscribes the contact exactly as the one-click POST does, and a
// forged or altered address changes nothing.
func TestUnsubscribeByMailThroughTheInboundListener(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, sink, _ := relayServer(t, b, map[string]string{"CARTEIRO_INBOUND_ADDR": "127.0.0.1:0"})
		aud := newAudience(t, ts, []map[string]any{{"email": "ana@customer.example"}, {"email": "bia@customer.example"}})
		r := broadcastReq(t, ts, ts.LiveKey, "POST", "", map[string]any{"audienceId": aud, "fromEmail": "news@shop.example",
			"subject": "Novidades", "html": `<p>Oi</p><a href="{{unsubscribeUrl}}">sair</a>`})
		testserver.Expect(t, r, 201, "")
		id := r.JSON(t)["id"].(string)
		testserver.Expect(t, broadcastReq(t, ts, ts.LiveKey, "POST", "/"+id+"/send", nil), 202, "")
		waitBroadcast(t, ts, ts.LiveKey, id, "sent")
		msgs, err := sink.WaitForMessages(2, 15*time.Second)
		testserver.Must(t, err == nil && len(msgs) == 2, "%d messages: %v", len(msgs), err)

		oneClick, mailto := map[string]string{}, map[string]string{}
		for _, m := range msgs {
			msg, _ := parseMessage(t, m)
			lu := msg.Header.Get("List-Unsubscribe")
			parts := listUnsubscribeRE.FindStringSubmatch(lu)
			testserver.Must(t, parts != nil, "%s: List-Unsubscribe %q", m.To[0], lu)
			local, _, _ := strings.Cut(parts[2], "@")
			testserver.Must(t, len(local) <= 64, "local part of %d octets: %s", len(local), local)
			testserver.Must(t, strings.Contains(strings.ToLower(msg.Header.Get("Dkim-Signature")), "list-unsubscribe"), "DKIM")
			oneClick[m.To[0]], mailto[m.To[0]] = parts[1], parts[2]
		}
		testserver.Must(t, mailto["ana@customer.example"] != mailto["bia@customer.example"], "one address for both: %v", mailto)

		suppressed := func(email string) map[string]any {
			t.Helper()
			r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/suppressions?email=" + url.QueryEscape(email), Key: ts.LiveKey})
			testserver.Expect(t, r, 200, "")
			for _, s := range r.JSON(t)["suppressions"].([]any) {
				if s := s.(map[string]any); s["email"] == email {
					return s
				}
			}
			return nil
		}
		mail := func(to string) {
			t.Helper()
			body := "From: ana@customer.example\r\nTo: " + to + "\r\nSubject: unsubscribe\r\n\r\nunsubscribe\r\n"
			err := sendSMTP(ts.InboundAddr(), "mta.sender.test", "ana@customer.example", []string{to}, []byte(body))
			testserver.Must(t, err == nil, "mail to %s: %v", to, err)
		}

		// Forged and altered addresses: accepted by the listener (it tells
		// nobody which tokens are good) and change nothing.
		ana := mailto["ana@customer.example"]
		local, host, _ := strings.Cut(ana, "@")
		token := strings.TrimPrefix(local, "unsubscribe+")
		other := "a"
		if token[10] == 'a' {
			other = "b"
		}
		flipped := token[:10] + other + token[11:]
		returnPath := strings.Split(msgs[0].From, "@")[0] // a token signed for another purpose
		for _, forged := range []string{"unsubscribe+" + flipped + "@" + host, "unsubscribe+" + token[:len(token)-1] + "@" + host,
			"unsubscribe+" + strings.TrimPrefix(returnPath, "bounces+") + "@" + host, "unsubscribe+@" + host} {
			mail(forged)
		}
		testserver.Must(t, suppressed("ana@customer.example") == nil && suppressed("bia@customer.example") == nil, "a forged address unsubscribed someone")

		// Ana writes to her address (an MTA may change its case); Bia uses
		// the one-click POST. Both end the same.
		mail(strings.ToUpper(local) + "@" + host)
		byMail := suppressed("ana@customer.example")
		testserver.Must(t, byMail != nil && suppressed("bia@customer.example") == nil, "mail unsubscribed %v; bia %v", byMail, suppressed("bia@customer.example"))
		u, _ := url.Parse(oneClick["bia@customer.example"])
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: u.Path, Body: "List-Unsubscribe=One-Click"}), 200, "")
		byPost := suppressed("bia@customer.example")
		testserver.Must(t, byPost != nil, "POST did not unsubscribe")
		for _, k := range []string{"reason", "category", "expiresAt", "sourceEmailId"} {
			testserver.Must(t, byMail[k] == byPost[k], "%s: by mail %v, by POST %v", k, byMail[k], byPost[k])
		}
		testserver.Must(t, byMail["reason"] == "unsubscribe" && byMail["category"] == "marketing", "suppression %v", byMail)
		mail(ana) // repeatable
	})
}
