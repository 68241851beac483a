package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/testserver"
)

const audiencesPath = "/v1/product/audiences"

func audienceReq(t *testing.T, ts *testserver.TestServer, method, path string, body any) *testserver.Response {
	t.Helper()
	return ts.Do(t, testserver.Request{Method: method, Path: audiencesPath + path, Key: ts.LiveKey, Body: body})
}

func fieldOfError(t *testing.T, r *testserver.Response) any {
	t.Helper()
	return r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)["field"]
}

func TestAudiencesAPI(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		r := audienceReq(t, ts, "POST", "", map[string]any{"name": "Clientes", "description": "todos"})
		testserver.Expect(t, r, http.StatusCreated, "")
		aud := r.JSON(t)
		id := aud["id"].(string)
		testserver.Must(t, aud["name"] == "Clientes" && aud["description"] == "todos" && aud["active"] == true && aud["contactsCount"] == 0.0, "created %v", aud)
		for _, c := range []struct {
			body  any
			field string
		}{
			{map[string]any{}, "name"},
			{map[string]any{"name": ""}, "name"},
			{map[string]any{"name": strings.Repeat("a", 256)}, "name"},
			{map[string]any{"name": "x", "extra": 1}, "extra"},
			{map[string]any{"name": 5}, "name"},
		} {
			r := audienceReq(t, ts, "POST", "", c.body)
			testserver.Expect(t, r, 422, "VALIDATION_ERROR")
			testserver.Must(t, fieldOfError(t, r) == c.field, "%v: %s", c.body, r.Body)
		}
		testserver.Expect(t, audienceReq(t, ts, "POST", "", "[]"), 400, "INVALID_JSON")

		// Pagination (4.4): limit default 50, max 200; offset.
		for i := 0; i < 3; i++ {
			testserver.Expect(t, audienceReq(t, ts, "POST", "", map[string]any{"name": fmt.Sprintf("extra %d", i)}), 201, "")
		}
		r = audienceReq(t, ts, "GET", "?limit=2&offset=1", nil)
		testserver.Expect(t, r, 200, "")
		list := r.JSON(t)
		testserver.Must(t, list["total"] == 4.0 && len(list["audiences"].([]any)) == 2 &&
			list["audiences"].([]any)[0].(map[string]any)["name"] == "extra 0", "page %s", r.Body)
		for _, q := range []string{"?limit=0", "?limit=201", "?limit=x", "?offset=-1"} {
			testserver.Expect(t, audienceReq(t, ts, "GET", q, nil), 422, "VALIDATION_ERROR")
		}
		testserver.Expect(t, audienceReq(t, ts, "GET", "?limit=200", nil), 200, "")

		// PUT: at least one field; null clears the description.
		r = audienceReq(t, ts, "PUT", "/"+id, map[string]any{"description": nil, "active": false})
		testserver.Expect(t, r, 200, "")
		testserver.Must(t, r.JSON(t)["id"] == id, "put answer %s", r.Body)
		r = audienceReq(t, ts, "GET", "/"+id, nil)
		testserver.Must(t, r.JSON(t)["description"] == nil && r.JSON(t)["active"] == false, "after put %s", r.Body)
		testserver.Expect(t, audienceReq(t, ts, "PUT", "/"+id, map[string]any{}), 422, "VALIDATION_ERROR")
		testserver.Expect(t, audienceReq(t, ts, "PUT", "/"+id, map[string]any{"name": ""}), 422, "VALIDATION_ERROR")

		// Contacts: unique per audience regardless of case (D41).
		r = audienceReq(t, ts, "POST", "/"+id+"/contacts", map[string]any{"email": "Ana@Example.com", "firstName": "Ana", "metadata": map[string]any{"plan": "pro", "seats": 3}})
		testserver.Expect(t, r, 201, "")
		contact := r.JSON(t)
		cid := contact["id"].(string)
		testserver.Must(t, contact["email"] == "Ana@example.com" && contact["firstName"] == "Ana" && contact["lastName"] == nil &&
			contact["metadata"].(map[string]any)["plan"] == "pro", "contact %v", contact)
		testserver.Expect(t, audienceReq(t, ts, "POST", "/"+id+"/contacts", map[string]any{"email": "ana@example.COM"}), 409, "CONFLICT")
		for _, c := range []struct {
			body  any
			field string
		}{
			{map[string]any{}, "email"},
			{map[string]any{"email": "not-an-email"}, "email"},
			{map[string]any{"email": "Ana <ana2@example.com>"}, "email"},
			{map[string]any{"email": "b@example.com", "firstName": "a\r\nBcc: x@y.example"}, "firstName"},
			{map[string]any{"email": "b@example.com", "metadata": []int{1}}, "metadata"},
			{map[string]any{"email": "b@example.com", "metadata": map[string]any{"big": strings.Repeat("x", 9000)}}, "metadata"},
		} {
			r := audienceReq(t, ts, "POST", "/"+id+"/contacts", c.body)
			testserver.Expect(t, r, 422, "VALIDATION_ERROR")
			testserver.Must(t, fieldOfError(t, r) == c.field, "%v: %s", c.body, r.Body)
		}
		r = audienceReq(t, ts, "PUT", "/"+id+"/contacts/"+cid, map[string]any{"firstName": nil, "lastName": "Souza", "metadata": map[string]any{"plan": "free"}})
		testserver.Expect(t, r, 200, "")
		testserver.Expect(t, audienceReq(t, ts, "PUT", "/"+id+"/contacts/"+cid, map[string]any{}), 422, "VALIDATION_ERROR")
		testserver.Expect(t, audienceReq(t, ts, "PUT", "/"+id+"/contacts/"+cid, map[string]any{"email": "x@y.example"}), 422, "VALIDATION_ERROR")
		r = audienceReq(t, ts, "GET", "/"+id+"/contacts", nil)
		testserver.Expect(t, r, 200, "")
		got := r.JSON(t)["contacts"].([]any)[0].(map[string]any)
		testserver.Must(t, got["firstName"] == nil && got["lastName"] == "Souza" && got["metadata"].(map[string]any)["plan"] == "free", "updated %v", got)

		// Bulk: invalid and duplicate (in the payload and already stored) are skipped and reported.
		r = audienceReq(t, ts, "POST", "/"+id+"/contacts/bulk", map[string]any{"contacts": []map[string]any{
			{"email": "new1@example.com", "firstName": "N1"},
			{"email": "ANA@example.com"},
			{"email": "broken"},
			{"email": "New1@Example.com"},
			{"email": "new2@example.com", "metadata": map[string]any{"k": "v"}},
		}})
		testserver.Expect(t, r, 200, "")
		bulk := r.JSON(t)
		testserver.Must(t, bulk["inserted"] == 2.0 && bulk["skipped"] == 3.0, "bulk %s", r.Body)
		errs := fmt.Sprint(bulk["errors"])
		for _, want := range []string{"map[email:broken reason:invalid_email]", "map[email:New1@example.com reason:duplicate]", "map[email:ANA@example.com reason:duplicate]"} {
			testserver.Must(t, strings.Contains(errs, want), "bulk errors %s lack %s", errs, want)
		}
		r = audienceReq(t, ts, "GET", "/"+id, nil)
		testserver.Must(t, r.JSON(t)["contactsCount"] == 3.0, "count after bulk %s", r.Body)
		testserver.Expect(t, audienceReq(t, ts, "POST", "/"+id+"/contacts/bulk", map[string]any{}), 422, "VALIDATION_ERROR")
		testserver.Expect(t, audienceReq(t, ts, "POST", "/"+id+"/contacts/bulk", map[string]any{"contacts": []any{}}), 422, "VALIDATION_ERROR")
		// Items are decoded as the import reads them; a bad one names its
		// place and refuses the call, and bad syntax anywhere is a 400 first.
		for body, field := range map[string]string{
			`{"contacts": null}`:                                          "contacts",
			`{"contacts": {"email": "a@example.com"}}`:                    "contacts",
			`{"contacts": [{"email": "x1@example.com"}, 5]}`:              "contacts[1]",
			`{"contacts": [{"email": "x1@example.com"}, {"email": 5}]}`:   "contacts[1].email",
			`{"contacts": [{"email": "x1@example.com", "nick": "x"}]}`:    "contacts[0].nick",
			`{"contacts": [{"email": "x1@example.com", "firstName": 7}]}`: "contacts[0].firstName",
		} {
			r = audienceReq(t, ts, "POST", "/"+id+"/contacts/bulk", body)
			testserver.Expect(t, r, 422, "VALIDATION_ERROR")
			testserver.Must(t, fieldOfError(t, r) == field, "%s: field %v, want %s", body, fieldOfError(t, r), field)
		}
		testserver.Expect(t, audienceReq(t, ts, "POST", "/"+id+"/contacts/bulk", `{"contacts": [{"email": "x1@example.com", "nick": "x"}, }`), 400, "INVALID_JSON")
		testserver.Expect(t, audienceReq(t, ts, "POST", "/"+id+"/contacts/bulk", `{"contacts": [], "other": 1}`), 422, "VALIDATION_ERROR")
		r = audienceReq(t, ts, "GET", "/"+id, nil)
		testserver.Must(t, r.JSON(t)["contactsCount"] == 3.0, "refused imports changed the count: %s", r.Body)

		r = audienceReq(t, ts, "GET", "/"+id+"/contacts?limit=2&offset=2", nil)
		testserver.Must(t, r.JSON(t)["total"] == 3.0 && len(r.JSON(t)["contacts"].([]any)) == 1, "contacts page %s", r.Body)
		for _, q := range []string{"?limit=0", "?limit=501", "?offset=x"} {
			testserver.Expect(t, audienceReq(t, ts, "GET", "/"+id+"/contacts"+q, nil), 422, "VALIDATION_ERROR")
		}

		testserver.Expect(t, audienceReq(t, ts, "DELETE", "/"+id+"/contacts/"+cid, nil), 204, "")
		testserver.Expect(t, audienceReq(t, ts, "DELETE", "/"+id+"/contacts/"+cid, nil), 404, "NOT_FOUND")
		r = audienceReq(t, ts, "GET", "/"+id, nil)
		testserver.Must(t, r.JSON(t)["contactsCount"] == 2.0, "count after delete %s", r.Body)

		// Shared by both modes (D7); sending keys may not manage them (D6).
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: audiencesPath + "/" + id, Key: ts.TestKey}), 200, "")
		sending := ts.NewKey(t, app.KeyRequest{OrgID: ts.OrgID, Name: "s", Mode: carteiro.ModeLive, Permission: carteiro.PermissionSending})
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: audiencesPath, Key: sending}), 403, "FORBIDDEN")

		// Deleting the audience removes its contacts.
		testserver.Expect(t, audienceReq(t, ts, "DELETE", "/"+id, nil), 204, "")
		testserver.Expect(t, audienceReq(t, ts, "GET", "/"+id, nil), 404, "NOT_FOUND")
		testserver.Expect(t, audienceReq(t, ts, "GET", "/"+id+"/contacts", nil), 404, "NOT_FOUND")
		dump := testserver.DumpDatabase(t, ts.Config.DatabaseURL)
		testserver.Must(t, !strings.Contains(dump, "new1@example.com") && !strings.Contains(dump, "new2@example.com"), "contacts outlive their audience")
	})
}

// TestBulkImportLimits imports exactly 10,000 contacts at once and refuses
// 10,001 without inserting any.
func TestBulkImportLimits(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		r := audienceReq(t, ts, "POST", "", map[string]any{"name": "big"})
		id := r.JSON(t)["id"].(string)
		contacts := make([]map[string]any, 10001)
		for i := range contacts {
			contacts[i] = map[string]any{"email": fmt.Sprintf("user%05d@example.com", i), "firstName": fmt.Sprintf("U%d", i)}
		}
		r = audienceReq(t, ts, "POST", "/"+id+"/contacts/bulk", map[string]any{"contacts": contacts})
		testserver.Expect(t, r, 422, "VALIDATION_ERROR")
		testserver.Must(t, fieldOfError(t, r) == "contacts", "10,001: %s", r.Body)
		r = audienceReq(t, ts, "GET", "/"+id, nil)
		testserver.Must(t, r.JSON(t)["contactsCount"] == 0.0, "nothing inserted: %s", r.Body)

		// A bad field far into the batch refuses it all, though the parts
		// before it had already gone to the database.
		bad := append([]map[string]any{}, contacts[:2500]...)
		bad[2400] = map[string]any{"email": "late@example.com", "metadata": "not an object"}
		r = audienceReq(t, ts, "POST", "/"+id+"/contacts/bulk", map[string]any{"contacts": bad})
		testserver.Expect(t, r, 422, "VALIDATION_ERROR")
		testserver.Must(t, fieldOfError(t, r) == "contacts[2400].metadata", "bad metadata: %s", r.Body)
		r = audienceReq(t, ts, "GET", "/"+id+"/contacts", nil)
		testserver.Must(t, r.JSON(t)["total"] == 0.0 && len(r.JSON(t)["contacts"].([]any)) == 0, "nothing inserted: %s", r.Body)

		r = audienceReq(t, ts, "POST", "/"+id+"/contacts/bulk", map[string]any{"contacts": contacts[:10000]})
		testserver.Expect(t, r, 200, "")
		testserver.Must(t, r.JSON(t)["inserted"] == 10000.0 && r.JSON(t)["skipped"] == 0.0, "10,000: %s", r.Body)
		// Again, plus the 10,001st: every old one is a duplicate.
		r = audienceReq(t, ts, "POST", "/"+id+"/contacts/bulk", map[string]any{"contacts": contacts[1:]})
		testserver.Expect(t, r, 200, "")
		testserver.Must(t, r.JSON(t)["inserted"] == 1.0 && r.JSON(t)["skipped"] == 9999.0 && len(r.JSON(t)["errors"].([]any)) == 9999, "re-import: inserted %v skipped %v", r.JSON(t)["inserted"], r.JSON(t)["skipped"])
		r = audienceReq(t, ts, "GET", "/"+id, nil)
		testserver.Must(t, r.JSON(t)["contactsCount"] == 10001.0, "count %s", r.Body)
		r = audienceReq(t, ts, "GET", "/"+id+"/contacts?limit=500&offset=9900", nil)
		testserver.Must(t, len(r.JSON(t)["contacts"].([]any)) == 101 && r.JSON(t)["total"] == 10001.0, "last page")
	})
}
