package e2e

import (
	"net/http"
	"testing"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// enableInbound turns inbound on for a domain and returns the answer (D75).
func enableInbound(t *testing.T, ts *testserver.TestServer, key, id string, enabled bool) map[string]any {
	t.Helper()
	r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/domains/" + id + "/inbound", Key: key,
		Body: map[string]any{"enabled": enabled}})
	testserver.Expect(t, r, http.StatusOK, "")
	return r.JSON(t)
}

// domainRecordsToPublish is GET /domains/:id's dnsRecordsToPublish.
func domainRecordsToPublish(t *testing.T, ts *testserver.TestServer, key, id string) []map[string]any {
	t.Helper()
	r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains/" + id, Key: key})
	testserver.Expect(t, r, http.StatusOK, "")
	var out struct {
		Records []map[string]any `json:"dnsRecordsToPublish"`
	}
	r.Decode(t, &out)
	return out.Records
}

// TestDomainInboundSwitchAndMX: turning inbound on answers the MX to
// publish (the inbound host, by default the bounce host), lists it in the
// domain's records, and verify checks it without requiring it; turning it
// off removes it (D75).
func TestDomainInboundSwitchAndMX(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, map[string]string{"CARTEIRO_INBOUND_HOST": "MX.Carteiro.TEST."})
		d := createDomain(t, ts, ts.LiveKey, "replies.example")
		publish(ts, d)
		testserver.Must(t, verify(t, ts, ts.LiveKey, d.ID).Status == "verified", "domain not verified")

		// Bad input changes nothing.
		r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/domains/" + d.ID + "/inbound", Key: ts.LiveKey,
			Body: map[string]any{}})
		testserver.Expect(t, r, http.StatusUnprocessableEntity, "VALIDATION_ERROR")
		r = ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/domains/" + d.ID + "/inbound", Key: ts.LiveKey,
			Body: map[string]any{"enabled": "yes"}})
		testserver.Must(t, r.Status == http.StatusUnprocessableEntity || r.Status == http.StatusBadRequest, "enabled as a string: %d %s", r.Status, r.Body)
		testserver.Must(t, len(domainRecordsToPublish(t, ts, ts.LiveKey, d.ID)) == 4, "a refused switch added a record")

		out := enableInbound(t, ts, ts.LiveKey, d.ID, true)
		mx, _ := out["mx"].(map[string]any)
		testserver.Must(t, out["domainId"] == d.ID && out["enabled"] == true && mx["type"] == "MX" && mx["host"] == "replies.example" &&
			mx["value"] == "mx.carteiro.test" && mx["priority"] == float64(10), "inbound answer %v", out)

		records := domainRecordsToPublish(t, ts, ts.LiveKey, d.ID)
		testserver.Must(t, len(records) == 5 && records[4]["type"] == "MX" && records[4]["host"] == "replies.example" &&
			records[4]["value"] == "mx.carteiro.test" && records[4]["priority"] == float64(10), "records %v", records)

		// The MX is checked, but a missing one does not fail the domain.
		v := verify(t, ts, ts.LiveKey, d.ID)
		testserver.Must(t, v.Status == "verified" && v.Checks["mx"].Status == "fail", "without the MX: %+v", v)
		ts.DNS.SetMX("replies.example", testutil.MX{Host: "mx.carteiro.test.", Pref: 10})
		v = verify(t, ts, ts.LiveKey, d.ID)
		testserver.Must(t, v.Status == "verified" && v.Checks["mx"].Status == "pass" && len(v.Checks["mx"].Found) == 1 &&
			v.Checks["mx"].Found[0] == "mx.carteiro.test", "with the MX: %+v", v)

		out = enableInbound(t, ts, ts.LiveKey, d.ID, false)
		testserver.Must(t, out["enabled"] == false, "disable answer %v", out)
		testserver.Must(t, len(domainRecordsToPublish(t, ts, ts.LiveKey, d.ID)) == 4, "the MX stays listed after disabling")
		_, has := verify(t, ts, ts.LiveKey, d.ID).Checks["mx"]
		testserver.Must(t, !has, "verify still checks the MX after disabling")

		// Sending-only keys cannot switch it; another organization gets 404.
		_, otherLive, _ := ts.NewOrg(t, "Other")
		r = ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/domains/" + d.ID + "/inbound", Key: otherLive,
			Body: map[string]any{"enabled": true}})
		testserver.Expect(t, r, http.StatusNotFound, "NOT_FOUND")
	})
}
