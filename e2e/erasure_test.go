package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

const erasePath = "/v1/product/privacy/erase"

// TestD78ErasureLeavesNothingOfTheAddress erases an address that is a
// contact in two audiences, the only recipient of one email, one of two of
// another and of a test-mode email, and named in a subject: afterwards no
// route shows it, the other recipients' data is intact, a second call
// answers zeros, and a new email to it is suppressed.
func TestD78ErasureLeavesNothingOfTheAddress(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		rcv := testutil.NewTLSReceiver(t, nil)
		ts, smtp, _ := relayServer(t, b, map[string]string{"CARTEIRO_WEBHOOK_ALLOW_PRIVATE": "true", "CARTEIRO_WEBHOOK_CA_FILE": rcv.CAFile()})
		hook := createHook(t, ts, rcv.URL()+"/hooks", []string{"email.delivered"}, "")["id"].(string)
		person := "person@y.example"
		first := newAudience(t, ts, []map[string]any{{"email": "Person@Y.example", "firstName": "Pat"}, {"email": "other@y.example"}})
		second := newAudience(t, ts, []map[string]any{{"email": person}})

		alone := send(t, ts, ts.LiveKey, map[string]any{"from": "shop@shop.example", "to": map[string]string{"email": person, "name": "Pat Doe"},
			"subject": "Your order, " + person, "html": "<p>hi Pat</p>", "text": "hi Pat"})
		shared := send(t, ts, ts.LiveKey, map[string]any{"from": "shop@shop.example", "to": []string{"friend@y.example"}, "cc": []string{"PERSON@y.example"},
			"subject": "for two", "text": "both of you"})
		friendOnly := send(t, ts, ts.LiveKey, map[string]any{"from": "shop@shop.example", "to": "friend@y.example", "subject": "just you", "html": "<p>friend</p>"})
		sandbox := send(t, ts, ts.TestKey, map[string]any{"from": "a@x.example", "to": person, "subject": "test mode", "text": "t"})
		for _, id := range []string{alone.ID, shared.ID, friendOnly.ID} {
			waitStatus(t, ts, ts.LiveKey, id, "delivered")
		}
		waitStatus(t, ts, ts.TestKey, sandbox.ID, "delivered")
		waitFor(t, func() bool {
			r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/webhooks/" + hook + "/deliveries", Key: ts.LiveKey})
			// One email.delivered per recipient: three live emails, one of
			// them to two, and the test-mode one.
			return len(r.JSON(t)["deliveries"].([]any)) == 5
		})
		delivered := len(smtp.Messages())

		sending := ts.NewKey(t, app.KeyRequest{OrgID: ts.OrgID, Name: "sender", Mode: carteiro.ModeLive, Permission: carteiro.PermissionSending})
		r := ts.Do(t, testserver.Request{Method: "POST", Path: erasePath, Key: sending, Body: map[string]string{"email": person}})
		testserver.Expect(t, r, http.StatusForbidden, "FORBIDDEN")
		r = ts.Do(t, testserver.Request{Method: "POST", Path: erasePath, Key: ts.LiveKey, Body: map[string]string{"email": "Pat <" + person + ">"}})
		testserver.Expect(t, r, http.StatusUnprocessableEntity, "VALIDATION_ERROR")

		r = ts.Do(t, testserver.Request{Method: "POST", Path: erasePath, Key: ts.LiveKey, Body: map[string]string{"email": "Person@y.example"}})
		testserver.Expect(t, r, http.StatusOK, "")
		got := r.JSON(t)
		testserver.Must(t, got["contactsDeleted"] == 2.0 && got["emailsRedacted"] == 3.0 && got["inboundDeleted"] == 0.0, "erasure answered %s", r.Body)

		// Nothing of the address is readable through any route.
		shows := func(key, path string) {
			t.Helper()
			r := ts.Do(t, testserver.Request{Method: "GET", Path: path, Key: key})
			testserver.Must(t, r.Status == http.StatusOK, "GET %s: %d %s", path, r.Status, r.Body)
			body := strings.ToLower(string(r.Body))
			testserver.Must(t, !strings.Contains(body, person) && !strings.Contains(body, "pat doe"), "GET %s still shows the address: %s", path, r.Body)
		}
		for _, id := range []string{alone.ID, shared.ID} {
			shows(ts.LiveKey, "/v1/product/emails/"+id)
			shows(ts.LiveKey, "/v1/product/emails/"+id+"/events")
			e := getEmail(t, ts, ts.LiveKey, id)
			testserver.Must(t, e.HTML == nil && e.Text == nil, "email %s kept its content: %+v", id, e)
		}
		shows(ts.TestKey, "/v1/product/emails/"+sandbox.ID)
		shows(ts.TestKey, "/v1/product/emails?limit=100")
		shows(ts.LiveKey, "/v1/product/emails?limit=100")
		shows(ts.LiveKey, "/v1/product/audiences/"+first+"/contacts")
		shows(ts.LiveKey, "/v1/product/audiences/"+second+"/contacts")
		shows(ts.LiveKey, "/v1/product/webhooks/"+hook+"/deliveries")
		e := getEmail(t, ts, ts.LiveKey, alone.ID)
		testserver.Must(t, e.To[0] == erasedAddress && e.Subject != nil && *e.Subject == "Your order, "+erasedAddress, "erased email %+v", e)
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails?recipient=person", Key: ts.LiveKey})
		testserver.Must(t, len(r.JSON(t)["emails"].([]any)) == 0, "still found by recipient: %s", r.Body)

		// The other recipients' data is intact.
		e = getEmail(t, ts, ts.LiveKey, shared.ID)
		testserver.Must(t, e.To[0] == "friend@y.example" && e.Cc[0] == erasedAddress && e.Status == "delivered", "shared email %+v", e)
		e = getEmail(t, ts, ts.LiveKey, friendOnly.ID)
		testserver.Must(t, e.HTML != nil && *e.HTML == "<p>friend</p>" && e.To[0] == "friend@y.example", "another recipient's email changed: %+v", e)
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/audiences/" + first + "/contacts", Key: ts.LiveKey})
		testserver.Must(t, r.JSON(t)["total"] == 1.0 && strings.Contains(string(r.Body), "other@y.example"), "first audience %s", r.Body)
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/audiences/" + second, Key: ts.LiveKey})
		testserver.Must(t, r.JSON(t)["contactsCount"] == 0.0, "second audience still counts the contact: %s", r.Body)
		// The webhook log's payloads are not served by any route; read
		// them from the store: the address is gone, the others stay.
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/webhooks/" + hook + "/deliveries", Key: ts.LiveKey})
		friendSeen := false
		for _, d := range r.JSON(t)["deliveries"].([]any) {
			stored, err := ts.Store.Delivery(t.Context(), d.(map[string]any)["id"].(string))
			testserver.Must(t, err == nil, "read delivery: %v", err)
			payload := strings.ToLower(string(stored.Payload))
			testserver.Must(t, !strings.Contains(payload, person), "webhook log keeps the address: %s", stored.Payload)
			friendSeen = friendSeen || strings.Contains(payload, "friend@y.example")
		}
		testserver.Must(t, friendSeen, "other recipients left the webhook log")

		// The suppression keeps the address; a second call erases nothing.
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/suppressions?email=" + person, Key: ts.LiveKey})
		sups := r.JSON(t)["suppressions"].([]any)
		testserver.Must(t, len(sups) == 1, "suppressions %s", r.Body)
		sup := sups[0].(map[string]any)
		testserver.Must(t, sup["reason"] == "manual" && sup["category"] == "all" && sup["email"] == person, "suppression %v", sup)
		r = ts.Do(t, testserver.Request{Method: "POST", Path: erasePath, Key: ts.LiveKey, Body: map[string]string{"email": person}})
		testserver.Expect(t, r, http.StatusOK, "")
		got = r.JSON(t)
		testserver.Must(t, got["contactsDeleted"] == 0.0 && got["emailsRedacted"] == 0.0 && got["inboundDeleted"] == 0.0, "second erasure %s", r.Body)
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/suppressions?email=" + person, Key: ts.LiveKey})
		testserver.Must(t, len(r.JSON(t)["suppressions"].([]any)) == 1, "second erasure added a suppression: %s", r.Body)

		// A new email to the address is suppressed.
		again := send(t, ts, ts.LiveKey, map[string]any{"from": "shop@shop.example", "to": person, "subject": "again", "text": "t"})
		e = waitStatus(t, ts, ts.LiveKey, again.ID, "skipped")
		testserver.Must(t, e.SuppressedAt != nil, "not suppressed: %+v", e)
		time.Sleep(100 * time.Millisecond)
		testserver.Must(t, len(smtp.Messages()) == delivered, "mail reached the erased address: %d messages, had %d", len(smtp.Messages()), delivered)
	})
}

// erasedAddress is how an erased address reads (D78).
const erasedAddress = "erased@erased.invalid"
