package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

func TestSuppressionsAPI(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		post := func(body any) *testserver.Response {
			return ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/suppressions", Key: ts.LiveKey, Body: body})
		}
		r := post(map[string]any{"email": "Someone@Example.org"})
		testserver.Expect(t, r, http.StatusCreated, "")
		s := r.JSON(t)
		id := s["id"].(string)
		testserver.Must(t, s["email"] == "someone@example.org" && s["reason"] == "manual" && s["source"] == "manual" &&
			s["category"] == "all" && s["status"] == "active" && s["expiresAt"] == nil, "created %v", s)
		r = post(map[string]any{"email": "someone@example.org", "reason": "bounce"})
		testserver.Expect(t, r, http.StatusConflict, "CONFLICT")
		testserver.Must(t, strings.Contains(string(r.Body), id), "conflict names the existing one: %s", r.Body)
		for _, bad := range []any{map[string]any{}, map[string]any{"email": "nope"}, map[string]any{"email": "a@b.example", "reason": "unsubscribe"},
			map[string]any{"email": "a@b.example", "expiresAt": "2001-01-01T00:00:00Z"}} {
			testserver.Expect(t, post(bad), 422, "VALIDATION_ERROR")
		}
		expiring := post(map[string]any{"email": "later@example.org", "reason": "complaint", "expiresAt": ts.Clock.Now().Add(time.Hour).Format(time.RFC3339)})
		testserver.Expect(t, expiring, 201, "")

		list := func(q string) []any {
			r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/suppressions" + q, Key: ts.LiveKey})
			testserver.Expect(t, r, 200, "")
			return r.JSON(t)["suppressions"].([]any)
		}
		testserver.Must(t, len(list("")) == 2 && len(list("?reason=complaint")) == 1 && len(list("?email=SOMEONE")) == 1, "filters")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/suppressions?status=gone", Key: ts.LiveKey}), 422, "VALIDATION_ERROR")

		// Expiry (D46): past expiresAt it is expired and blocks nothing.
		ts.Clock.Advance(2 * time.Hour)
		testserver.Must(t, len(list("")) == 1 && len(list("?status=expired")) == 1, "expiry")
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/suppressions/" + expiring.JSON(t)["id"].(string), Key: ts.LiveKey})
		testserver.Must(t, r.JSON(t)["status"] == "expired", "expired %s", r.Body)
		testserver.Expect(t, post(map[string]any{"email": "later@example.org"}), 201, "")

		// Reactivate: inactive, no longer blocking; a new one may be added.
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/suppressions/" + id + "/reactivate", Key: ts.LiveKey}), 204, "")
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/suppressions/" + id, Key: ts.LiveKey})
		testserver.Must(t, r.JSON(t)["status"] == "inactive", "reactivated %s", r.Body)
		testserver.Must(t, len(list("?status=inactive")) == 1, "inactive list")
		testserver.Expect(t, post(map[string]any{"email": "someone@example.org"}), 201, "")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "DELETE", Path: "/v1/product/suppressions/" + id, Key: ts.LiveKey}), 204, "")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/suppressions/" + id, Key: ts.LiveKey}), 404, "NOT_FOUND")
	})
}

func TestSuppressedRecipientsAreDroppedAtHandOff(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp, _ := relayServer(t, b, nil)
		smtp.Script("gone@customer.example", testutil.Reply{Stage: testutil.StageRcpt, Code: 550, Enhanced: "5.1.1", Message: "no such user"})
		res := send(t, ts, ts.LiveKey, map[string]any{"from": "orders@shop.example", "to": "gone@customer.example", "subject": "s", "text": "t"})
		waitStatus(t, ts, ts.LiveKey, res.ID, "bounced")
		// D46: a synchronous 5.1.1 adds an automatic mailbox_not_found suppression.
		r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/suppressions?reason=mailbox_not_found", Key: ts.LiveKey})
		testserver.Must(t, strings.Contains(string(r.Body), `"email":"gone@customer.example"`) && strings.Contains(string(r.Body), `"source":"auto"`), "auto suppression %s", r.Body)

		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/suppressions", Key: ts.LiveKey,
			Body: map[string]any{"email": "manual@customer.example"}}), 201, "")
		smtp.Reset()
		// Every recipient suppressed: skipped, nothing handed to SMTP.
		res = send(t, ts, ts.LiveKey, map[string]any{"from": "orders@shop.example", "to": []string{"gone@customer.example", "manual@customer.example"}, "subject": "s", "text": "t"})
		e := waitStatus(t, ts, ts.LiveKey, res.ID, "skipped")
		testserver.Must(t, e.SuppressedAt != nil, "suppressedAt missing")
		testserver.Must(t, len(findEvents(events(t, ts, ts.LiveKey, res.ID), "suppressed")) == 2, "suppressed events")
		// Partly suppressed: the rest is delivered.
		res = send(t, ts, ts.LiveKey, map[string]any{"from": "orders@shop.example", "to": []string{"manual@customer.example", "fine@customer.example"}, "subject": "s", "text": "t"})
		waitStatus(t, ts, ts.LiveKey, res.ID, "delivered")
		msgs := smtp.Messages()
		testserver.Must(t, len(msgs) == 1 && len(msgs[0].To) == 1 && msgs[0].To[0] == "fine@customer.example", "SMTP got %v", msgs)
	})
}
