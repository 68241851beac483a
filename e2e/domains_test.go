package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/carteiro/carteiro/internal/testserver"
)

type createdDomain struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Status  string `json:"status"`
	Records []struct {
		Record   string `json:"record"`
		Type     string `json:"type"`
		Host     string `json:"host"`
		Value    string `json:"value"`
		TTL      int    `json:"ttl"`
		Status   string `json:"status"`
		Required bool   `json:"required"`
	} `json:"records"`
}

type verification struct {
	ID          string  `json:"id"`
	Status      string  `json:"status"`
	VerifiedAt  *string `json:"verifiedAt"`
	LastCheckAt *string `json:"lastCheckAt"`
	Checks      map[string]struct {
		Status   string   `json:"status"`
		Expected string   `json:"expected"`
		Found    []string `json:"found"`
	} `json:"checks"`
}

func createDomain(t *testing.T, ts *testserver.TestServer, key, name string) createdDomain {
	t.Helper()
	r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/domains", Key: key, Body: map[string]any{"name": name}})
	testserver.Expect(t, r, http.StatusCreated, "")
	var d createdDomain
	r.Decode(t, &d)
	return d
}

// publish puts every record of d in the test DNS server, as a customer would.
func publish(ts *testserver.TestServer, d createdDomain) {
	for _, rec := range d.Records {
		switch rec.Type {
		case "TXT":
			ts.DNS.SetTXT(rec.Host, rec.Value)
		case "CNAME":
			ts.DNS.SetCNAME(rec.Host, rec.Value)
		}
	}
}

func verify(t *testing.T, ts *testserver.TestServer, key, id string) verification {
	t.Helper()
	r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/domains/" + id + "/verify", Key: key})
	testserver.Expect(t, r, http.StatusAccepted, "")
	var v verification
	r.Decode(t, &v)
	return v
}

func TestDomainLifecycle(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		d := createDomain(t, ts, ts.LiveKey, "Example.COM.")

		// D31: four records, normalized name, pending.
		testserver.Must(t, d.Name == "example.com" && d.Status == "pending", "created %+v", d)
		byKind := map[string]int{}
		for i, rec := range d.Records {
			byKind[rec.Record] = i
			testserver.Must(t, rec.Status == "pending" && rec.TTL > 0, "record %+v", rec)
		}
		want := map[string][3]string{
			"ownership": {"TXT", "_carteiro.example.com", "carteiro-verification="},
			"dkim":      {"TXT", "cart1._domainkey.example.com", "v=DKIM1; k=rsa; p="},
			"spf":       {"CNAME", "bounces.example.com", "bounces.carteiro.localhost"},
			"dmarc":     {"TXT", "_dmarc.example.com", "v=DMARC1; p=none;"},
		}
		for kind, w := range want {
			i, ok := byKind[kind]
			testserver.Must(t, ok, "record %s missing: %+v", kind, d.Records)
			rec := d.Records[i]
			testserver.Must(t, rec.Type == w[0] && rec.Host == w[1] && strings.HasPrefix(rec.Value, w[2]),
				"%s record = %+v, want %v", kind, rec, w)
			testserver.Must(t, rec.Required == (kind != "dmarc"), "%s required = %v", kind, rec.Required)
		}

		// Duplicate: 409 naming the existing domain.
		r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/domains", Key: ts.LiveKey, Body: map[string]any{"name": "example.com"}})
		testserver.Expect(t, r, http.StatusConflict, "CONFLICT")
		details := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)
		testserver.Must(t, details["id"] == d.ID, "conflict details %v, want id %s", details, d.ID)

		// GET one carries dnsRecordsToPublish; GET list does not.
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains/" + d.ID, Key: ts.LiveKey})
		testserver.Expect(t, r, http.StatusOK, "")
		one := r.JSON(t)
		recs, _ := one["dnsRecordsToPublish"].([]any)
		testserver.Must(t, len(recs) == 4 && one["dkimSelector"] == "cart1" && one["verifiedAt"] == nil, "GET domain: %s", r.Body)
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains", Key: ts.LiveKey})
		testserver.Expect(t, r, http.StatusOK, "")
		list := r.JSON(t)["domains"].([]any)
		testserver.Must(t, len(list) == 1 && list[0].(map[string]any)["id"] == d.ID, "list: %s", r.Body)

		// Nothing published: every check fails, still pending.
		v := verify(t, ts, ts.LiveKey, d.ID)
		testserver.Must(t, v.Status == "pending" && v.VerifiedAt == nil && v.LastCheckAt != nil, "verify before publishing: %+v", v)
		for _, kind := range []string{"spf", "dkim", "dmarc", "ownership"} {
			testserver.Must(t, v.Checks[kind].Status == "fail" && v.Checks[kind].Expected != "", "check %s = %+v", kind, v.Checks[kind])
		}

		// A wrong DKIM key: that check fails and shows what was found.
		publish(ts, d)
		wrong := "v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwrong"
		ts.DNS.SetTXT("cart1._domainkey.example.com", wrong)
		v = verify(t, ts, ts.LiveKey, d.ID)
		testserver.Must(t, v.Status == "pending", "status with wrong DKIM = %s", v.Status)
		dk := v.Checks["dkim"]
		testserver.Must(t, dk.Status == "fail" && dk.Expected == d.Records[byKind["dkim"]].Value && len(dk.Found) == 1 && dk.Found[0] == wrong,
			"dkim check = %+v", dk)
		testserver.Must(t, v.Checks["ownership"].Status == "pass" && v.Checks["spf"].Status == "pass", "other checks: %+v", v.Checks)

		// Everything right: verified.
		publish(ts, d)
		v = verify(t, ts, ts.LiveKey, d.ID)
		testserver.Must(t, v.Status == "verified" && v.VerifiedAt != nil, "verify after publishing: %+v", v)
		for kind, c := range v.Checks {
			testserver.Must(t, c.Status == "pass", "check %s = %+v", kind, c)
		}

		// Soft delete (D35): gone from reads, name reusable.
		r = ts.Do(t, testserver.Request{Method: "DELETE", Path: "/v1/product/domains/" + d.ID, Key: ts.LiveKey})
		testserver.Expect(t, r, http.StatusOK, "")
		testserver.Must(t, r.JSON(t)["ok"] == true, "delete body %s", r.Body)
		for _, req := range []testserver.Request{
			{Method: "GET", Path: "/v1/product/domains/" + d.ID},
			{Method: "POST", Path: "/v1/product/domains/" + d.ID + "/verify"},
			{Method: "DELETE", Path: "/v1/product/domains/" + d.ID},
		} {
			req.Key = ts.LiveKey
			testserver.Expect(t, ts.Do(t, req), http.StatusNotFound, "NOT_FOUND")
		}
		again := createDomain(t, ts, ts.LiveKey, "example.com")
		testserver.Must(t, again.ID != d.ID && again.Status == "pending", "re-created %+v", again)
	})
}

func TestDomainBadInputChangesNothing(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, map[string]string{"CARTEIRO_RATE_LIMIT_KEY": "1000,2000"})
		cases := []struct {
			name   string
			body   any
			status int
			code   string
			field  string
			reason string
		}{
			{"not json", `{"name": `, 400, "INVALID_JSON", "", ""},
			{"array", `[{"name":"a.com"}]`, 400, "INVALID_JSON", "", ""},
			{"string", `"a.com"`, 400, "INVALID_JSON", "", ""},
			{"empty body", ``, 400, "INVALID_JSON", "", ""},
			{"trailing garbage", `{"name":"a.com"} x`, 400, "INVALID_JSON", "", ""},
			{"missing name", `{}`, 422, "VALIDATION_ERROR", "name", "required"},
			{"null name", `{"name": null}`, 422, "VALIDATION_ERROR", "name", "required"},
			{"wrong type", `{"name": 42}`, 422, "VALIDATION_ERROR", "name", "invalid_type"},
			{"unknown field", `{"name":"a.com","extra":1}`, 422, "VALIDATION_ERROR", "extra", "unknown_field"},
			{"one label", `{"name":"localhost"}`, 422, "VALIDATION_ERROR", "name", "invalid_domain"},
			{"ip address", `{"name":"10.0.0.1"}`, 422, "VALIDATION_ERROR", "name", "invalid_domain"},
			{"bad chars", `{"name":"exa mple.com"}`, 422, "VALIDATION_ERROR", "name", "invalid_domain"},
			{"header injection", `{"name":"a.com\r\nX: y"}`, 422, "VALIDATION_ERROR", "name", "invalid_domain"},
			{"too long label", `{"name":"` + strings.Repeat("a", 64) + `.com"}`, 422, "VALIDATION_ERROR", "name", "invalid_domain"},
		}
		for _, c := range cases {
			r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/domains", Key: ts.LiveKey, Body: c.body})
			if r.Status != c.status || r.ErrorCode() != c.code {
				t.Errorf("%s: got %d %s, want %d %s (%s)", c.name, r.Status, r.ErrorCode(), c.status, c.code, r.Body)
				continue
			}
			details := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)
			if c.field != "" && (details["field"] != c.field || details["reason"] != c.reason) {
				t.Errorf("%s: details %v, want field %s reason %s", c.name, details, c.field, c.reason)
			}
		}
		// 413 over the 40 MiB limit of D14.
		big := `{"name":"` + strings.Repeat("a", 41<<20) + `"}`
		r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/domains", Key: ts.LiveKey, Body: big})
		testserver.Expect(t, r, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")

		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains", Key: ts.LiveKey})
		testserver.Expect(t, r, http.StatusOK, "")
		testserver.Must(t, len(r.JSON(t)["domains"].([]any)) == 0, "bad input created something: %s", r.Body)

		// Verify and delete take no body but refuse a malformed one.
		d := createDomain(t, ts, ts.LiveKey, "ok.example")
		r = ts.Do(t, testserver.Request{Method: "DELETE", Path: "/v1/product/domains/" + d.ID, Key: ts.LiveKey, Body: `{"method":"sms","credential":"1"}`})
		testserver.Expect(t, r, http.StatusUnprocessableEntity, "VALIDATION_ERROR")
		r = ts.Do(t, testserver.Request{Method: "DELETE", Path: "/v1/product/domains/" + d.ID, Key: ts.LiveKey, Body: `{"bogus":true}`})
		testserver.Expect(t, r, http.StatusUnprocessableEntity, "VALIDATION_ERROR")
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains/" + d.ID, Key: ts.LiveKey})
		testserver.Expect(t, r, http.StatusOK, "")
	})
}
