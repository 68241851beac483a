package e2e

import (
	"net/http"
	"testing"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/testserver"
)

// expectFromForbidden checks a 403 FORBIDDEN naming the refused field.
func expectFromForbidden(t *testing.T, r *testserver.Response, field string) {
	t.Helper()
	testserver.Expect(t, r, http.StatusForbidden, "FORBIDDEN")
	details, _ := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)
	testserver.Must(t, details["field"] == field, "details %v, want field %s", details, field)
}

// A key restricted to one domain cannot make mail leave from another one
// through objects another key created: sending a broadcast, resending an
// email, registering a sender (issue 23 item 7). Its own domain still works
// on each path.
func TestRestrictedKeyStaysInItsDomain(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp, _ := relayServer(t, b, nil)
		other := createDomain(t, ts, ts.LiveKey, "other.example")
		publish(ts, other)
		testserver.Must(t, verify(t, ts, ts.LiveKey, other.ID).Status == "verified", "other.example not verified")
		restricted := ts.NewKey(t, app.KeyRequest{OrgID: ts.OrgID, Name: "shop only", Mode: carteiro.ModeLive, Domain: "shop.example"})
		aud := newAudience(t, ts, []map[string]any{{"email": "reader@customer.example"}})

		// A broadcast the full key drafted from other.example.
		r := broadcastReq(t, ts, ts.LiveKey, "POST", "", map[string]any{"audienceId": aud, "fromEmail": "news@other.example", "subject": "s", "text": "t"})
		testserver.Expect(t, r, 201, "")
		foreign := r.JSON(t)["id"].(string)
		expectFromForbidden(t, broadcastReq(t, ts, restricted, "POST", "/"+foreign+"/send", nil), "fromEmail")
		testserver.Must(t, broadcastReq(t, ts, ts.LiveKey, "GET", "/"+foreign, nil).JSON(t)["status"] == "draft", "the refused broadcast started")

		// An email the full key sent from other.example, then cancelled.
		later := ts.Clock.Now().Add(2 * 3600e9).Format("2006-01-02T15:04:05Z07:00")
		cancelled := send(t, ts, ts.LiveKey, map[string]any{"from": "a@other.example", "to": "x@customer.example", "subject": "s", "text": "t", "scheduledAt": later})
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/" + cancelled.ID + "/cancel", Key: ts.LiveKey}), 204, "")
		expectFromForbidden(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/" + cancelled.ID + "/resend", Key: restricted}), "from")

		// A sender outside the domain: its verification email would leave.
		expectFromForbidden(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/senders", Key: restricted,
			Body: map[string]string{"email": "someone@gmail.example"}}), "email")

		// Its own domain: a broadcast another key drafted, and a resend.
		r = broadcastReq(t, ts, ts.LiveKey, "POST", "", map[string]any{"audienceId": aud, "fromEmail": "news@shop.example", "subject": "s", "text": "t"})
		own := r.JSON(t)["id"].(string)
		testserver.Expect(t, broadcastReq(t, ts, restricted, "POST", "/"+own+"/send", nil), 202, "")
		waitBroadcast(t, ts, ts.LiveKey, own, "sent")
		mine := send(t, ts, ts.LiveKey, map[string]any{"from": "a@shop.example", "to": "x@customer.example", "subject": "s", "text": "t", "scheduledAt": later})
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/" + mine.ID + "/cancel", Key: ts.LiveKey}), 204, "")
		r = ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/" + mine.ID + "/resend", Key: restricted})
		testserver.Expect(t, r, 202, "")
		var resent sendResult
		r.Decode(t, &resent)
		testserver.Must(t, resent.Status == "scheduled", "resent %+v", resent) // keeps the original's time (D29)
		for _, m := range smtp.Messages() {
			testserver.Must(t, carteiro.DomainOf(m.From) != "other.example", "mail left from %s", m.From)
		}
	})
}
