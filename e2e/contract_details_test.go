package e2e

import (
	"testing"

	"github.com/carteiro/carteiro/internal/testserver"
)

// errorDetails returns the details of an error envelope.
func errorDetails(t *testing.T, r *testserver.Response) map[string]any {
	t.Helper()
	return r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)
}

// TestConflictsNameTheExistingObject is D11: every 409 CONFLICT for a
// duplicate carries details.id of the object that already holds the name
// or address (issue 24 item 6).
func TestConflictsNameTheExistingObject(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		r := templateReq(ts, t, "POST", "", map[string]any{"name": "welcome", "html": "x"})
		testserver.Expect(t, r, 201, "")
		welcome := r.JSON(t)["id"].(string)
		r = templateReq(ts, t, "POST", "", map[string]any{"name": "welcome", "html": "y"})
		testserver.Expect(t, r, 409, "CONFLICT")
		testserver.Must(t, errorDetails(t, r)["id"] == welcome, "POST duplicate template name: details %v, want id %s", errorDetails(t, r), welcome)
		r = templateReq(ts, t, "POST", "", map[string]any{"name": "other", "html": "z"})
		other := r.JSON(t)["id"].(string)
		r = templateReq(ts, t, "PATCH", "/"+other, map[string]any{"name": "welcome"})
		testserver.Expect(t, r, 409, "CONFLICT")
		testserver.Must(t, errorDetails(t, r)["id"] == welcome, "PATCH to a taken name: details %v, want id %s", errorDetails(t, r), welcome)

		r = audienceReq(t, ts, "POST", "", map[string]any{"name": "list"})
		aud := r.JSON(t)["id"].(string)
		r = audienceReq(t, ts, "POST", "/"+aud+"/contacts", map[string]any{"email": "ana@example.com"})
		testserver.Expect(t, r, 201, "")
		ana := r.JSON(t)["id"].(string)
		r = audienceReq(t, ts, "POST", "/"+aud+"/contacts", map[string]any{"email": "Ana@Example.COM"})
		testserver.Expect(t, r, 409, "CONFLICT")
		testserver.Must(t, errorDetails(t, r)["id"] == ana, "duplicate contact: details %v, want id %s", errorDetails(t, r), ana)
	})
}

// TestInvalidStateCarriesTheCurrentStatus is D11: a 409 INVALID_STATE
// carries the broadcast's current status, not the one the refused move
// would have given it (issue 24 item 6).
func TestInvalidStateCarriesTheCurrentStatus(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, _, _ := relayServer(t, b, nil)
		aud := newAudience(t, ts, []map[string]any{{"email": "ana@customer.example"}})
		create := func() string {
			r := broadcastReq(t, ts, ts.LiveKey, "POST", "", map[string]any{"audienceId": aud, "fromEmail": "news@shop.example", "subject": "s", "text": "t"})
			testserver.Expect(t, r, 201, "")
			return r.JSON(t)["id"].(string)
		}
		expectState := func(r *testserver.Response, want, what string) {
			t.Helper()
			testserver.Expect(t, r, 409, "INVALID_STATE")
			testserver.Must(t, errorDetails(t, r)["status"] == want, "%s: details %v, want status %s", what, errorDetails(t, r), want)
		}

		draft := create()
		expectState(broadcastReq(t, ts, ts.LiveKey, "POST", "/"+draft+"/cancel", nil), "draft", "cancel a draft")
		testserver.Expect(t, broadcastReq(t, ts, ts.LiveKey, "POST", "/"+draft+"/send", nil), 202, "")
		waitBroadcast(t, ts, ts.LiveKey, draft, "sent")
		expectState(broadcastReq(t, ts, ts.LiveKey, "POST", "/"+draft+"/send", nil), "sent", "send a sent broadcast")
		expectState(broadcastReq(t, ts, ts.LiveKey, "POST", "/"+draft+"/cancel", nil), "sent", "cancel a sent broadcast")

		r := broadcastReq(t, ts, ts.LiveKey, "POST", "", map[string]any{"audienceId": aud, "fromEmail": "news@shop.example", "subject": "s", "text": "t",
			"scheduledAt": ts.Clock.Now().Add(3600e9).UTC().Format("2006-01-02T15:04:05Z")})
		testserver.Expect(t, r, 201, "")
		cancelled := r.JSON(t)["id"].(string)
		testserver.Expect(t, broadcastReq(t, ts, ts.LiveKey, "POST", "/"+cancelled+"/cancel", nil), 200, "")
		expectState(broadcastReq(t, ts, ts.LiveKey, "POST", "/"+cancelled+"/send", nil), "cancelled", "send a cancelled broadcast")
		expectState(broadcastReq(t, ts, ts.LiveKey, "POST", "/"+cancelled+"/cancel", nil), "cancelled", "cancel a cancelled broadcast")
	})
}

// TestLimitThatIsNoNumberIsInvalidType: limit=abc is invalid_type, a
// number out of range out_of_range (issue 24 item 6).
func TestLimitThatIsNoNumberIsInvalidType(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		for q, want := range map[string]string{"abc": "invalid_type", "1.5": "invalid_type", "0": "out_of_range", "-3": "out_of_range"} {
			r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails?limit=" + q, Key: ts.LiveKey})
			testserver.Expect(t, r, 422, "VALIDATION_ERROR")
			d := errorDetails(t, r)
			testserver.Must(t, d["field"] == "limit" && d["reason"] == want, "limit=%s: details %v, want reason %s", q, d, want)
		}
	})
}
