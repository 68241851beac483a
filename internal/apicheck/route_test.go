package apicheck

import (
	"net/http"
	"slices"
	"testing"
)

func TestOperationsListTheRouteTable(t *testing.T) {
	t.Parallel()
	got := loadChecker(t).Operations()
	want := []Operation{
		{"GET", "/healthz", "getHealth", false},
		{"GET", "/metrics", "getMetrics", false},
		{"GET", "/readyz", "getReadiness", false},
		{"GET", "/t/c/{token}", "trackClick", false},
		{"GET", "/t/o/{token}", "trackOpen", false},
		{"GET", "/v1/product/domains", "listDomains", true},
		{"POST", "/v1/product/domains", "createDomain", true},
		{"DELETE", "/v1/product/domains/{id}", "deleteDomain", true},
		{"GET", "/v1/product/domains/{id}", "getDomain", true},
		{"POST", "/v1/product/domains/{id}/health", "checkDomainHealth", true},
		{"POST", "/v1/product/domains/{id}/inbound", "setDomainInbound", true},
		{"POST", "/v1/product/domains/{id}/verify", "verifyDomain", true},
		{"GET", "/v1/product/domains/{id}/warmup", "getDomainWarmup", true},
		{"GET", "/v1/product/emails", "listEmails", true},
		{"POST", "/v1/product/emails", "sendEmail", true},
		{"POST", "/v1/product/emails/batch", "sendEmailBatch", true},
		{"GET", "/v1/product/emails/tags", "listEmailTags", true},
		{"GET", "/v1/product/emails/{id}", "getEmail", true},
		{"POST", "/v1/product/emails/{id}/cancel", "cancelEmail", true},
		{"GET", "/v1/product/emails/{id}/events", "listEmailEvents", true},
		{"POST", "/v1/product/emails/{id}/resend", "resendEmail", true},
		{"GET", "/v1/product/inbound-emails", "listInboundEmails", true},
		{"DELETE", "/v1/product/inbound-emails/{id}", "deleteInboundEmail", true},
		{"GET", "/v1/product/inbound-emails/{id}", "getInboundEmail", true},
		{"GET", "/v1/product/inbound-emails/{id}/attachments/{attachmentId}", "getInboundEmailAttachment", true},
		{"GET", "/v1/product/inbound-emails/{id}/raw", "getInboundEmailRaw", true},
		{"GET", "/v1/product/openapi.json", "getOpenAPIDocument", false},
		{"POST", "/v1/product/privacy/erase", "erasePerson", true},
		{"GET", "/v1/product/senders", "listSenders", true},
		{"POST", "/v1/product/senders", "createSender", true},
		{"POST", "/v1/product/senders/verify", "verifySender", true},
		{"DELETE", "/v1/product/senders/{id}", "deleteSender", true},
		{"GET", "/v1/product/stats", "getStats", true},
		{"GET", "/v1/product/suppressions", "listSuppressions", true},
		{"POST", "/v1/product/suppressions", "createSuppression", true},
		{"DELETE", "/v1/product/suppressions/{id}", "deleteSuppression", true},
		{"GET", "/v1/product/suppressions/{id}", "getSuppression", true},
		{"POST", "/v1/product/suppressions/{id}/reactivate", "reactivateSuppression", true},
		{"GET", "/v1/product/webhooks", "listWebhooks", true},
		{"POST", "/v1/product/webhooks", "createWebhook", true},
		{"DELETE", "/v1/product/webhooks/{id}", "deleteWebhook", true},
		{"GET", "/v1/product/webhooks/{id}", "getWebhook", true},
		{"PATCH", "/v1/product/webhooks/{id}", "setWebhookStatus", true},
		{"PUT", "/v1/product/webhooks/{id}", "updateWebhook", true},
		{"GET", "/v1/product/webhooks/{id}/deliveries", "listWebhookDeliveries", true},
		{"POST", "/v1/product/webhooks/{id}/rotate-secret", "rotateWebhookSecret", true},
		{"POST", "/v1/product/webhooks/{id}/test", "testWebhook", true},
	}
	// Later issues add routes: every route above must stay, in this order.
	var kept []Operation
	for _, op := range got {
		if slices.Contains(want, op) {
			kept = append(kept, op)
		}
	}
	if !slices.Equal(kept, want) {
		t.Errorf("Operations() = %v\nwant to contain, in order, %v", got, want)
	}
}

func TestFill(t *testing.T) {
	t.Parallel()
	op := Operation{Method: "POST", Path: "/v1/product/audiences/{id}/contacts/{contactId}"}
	if got, want := op.Fill("x"), "/v1/product/audiences/x/contacts/x"; got != want {
		t.Errorf("Fill = %q, want %q", got, want)
	}
}

// A literal segment beats a parameter, and a method a less specific route
// has still matches it, as with net/http patterns.
func TestMatchingPrefersLiteralSegments(t *testing.T) {
	t.Parallel()
	doc := minimalDocument(t, func(d obj) {
		paths := d["paths"].(obj)
		op := func(id string) obj {
			return obj{"operationId": id, "responses": obj{"200": obj{"description": "ok"}}}
		}
		paths["/things/verify"] = obj{"post": op("verifyThing")}
		paths["/things/{id}"].(obj)["delete"] = obj{
			"operationId": "deleteThing",
			"parameters":  []obj{{"name": "id", "in": "path", "required": true, "schema": obj{"type": "string"}}},
			"responses":   obj{"204": obj{"description": "gone"}},
		}
	})
	c, err := load(doc, doc)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		method, path, wantID string
		wantAllowed          []string
	}{
		{"POST", "/v1/product/things/verify", "verifyThing", nil},
		{"GET", "/v1/product/things/verify", "getThing", nil},
		{"DELETE", "/v1/product/things/verify", "deleteThing", nil},
		{"GET", "/v1/product/things/42", "getThing", nil},
		{"HEAD", "/v1/product/things/42", "getThing", nil},
		{"POST", "/v1/product/things/42", "", []string{"DELETE", "GET"}},
		{"GET", "/v1/product/things", "", nil},
		{"GET", "/v1/product/things/42/more", "", nil},
		{"GET", "/things/42", "", nil},
	}
	for _, tc := range cases {
		r, allowed := c.find(tc.method, tc.path)
		gotID := ""
		if r != nil {
			gotID = r.op.ID
		}
		if gotID != tc.wantID || !slices.Equal(allowed, tc.wantAllowed) {
			t.Errorf("%s %s: got %q allowed %v, want %q allowed %v", tc.method, tc.path, gotID, allowed, tc.wantID, tc.wantAllowed)
		}
	}
}

// Requests carry the path as the server saw it; percent-encoded segments are
// matched decoded, as net/http routes them.
func TestMatchingUsesTheDecodedPath(t *testing.T) {
	t.Parallel()
	c := loadChecker(t)
	req, err := http.NewRequest("GET", "http://127.0.0.1:1/v1/product/domains/a%20b", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := c.find(req.Method, req.URL.Path); r == nil || r.op.ID != "getDomain" {
		t.Errorf("got %v, want getDomain", r)
	}
}
