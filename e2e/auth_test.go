package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/testserver"
)

func TestAuthentication(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		path := "/v1/product/domains"
		cases := []struct {
			name   string
			header string
			code   string
		}{
			{"no header", "", "MISSING_API_KEY"},
			{"basic scheme", "Basic " + ts.LiveKey, "MISSING_API_KEY"},
			{"bearer without key", "Bearer ", "MISSING_API_KEY"},
			{"malformed key", "Bearer abc", "INVALID_API_KEY"},
			{"unknown key", "Bearer " + carteiro.NewSecretKey(carteiro.ModeLive), "INVALID_API_KEY"},
		}
		for _, c := range cases {
			h := map[string]string{}
			if c.header != "" {
				h["Authorization"] = c.header
			}
			r := ts.Do(t, testserver.Request{Method: "GET", Path: path, Header: h})
			if r.Status != http.StatusUnauthorized || r.ErrorCode() != c.code {
				t.Errorf("%s: %d %s, want 401 %s", c.name, r.Status, r.ErrorCode(), c.code)
			}
		}
		// Both bootstrap keys work; a revoked key stops working at once.
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: path, Key: ts.LiveKey}), 200, "")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: path, Key: ts.TestKey}), 200, "")
		nk, err := ts.App.CreateKey(t.Context(), app.KeyRequest{OrgID: ts.OrgID, Name: "temp", Mode: carteiro.ModeLive})
		testserver.Must(t, err == nil, "create key: %v", err)
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: path, Key: nk.Secret}), 200, "")
		testserver.Must(t, ts.App.RevokeKey(t.Context(), nk.Key.ID) == nil, "revoke")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: path, Key: nk.Secret}), 401, "INVALID_API_KEY")

		// A sending_access key may not manage domains (D6).
		sending := ts.NewKey(t, app.KeyRequest{OrgID: ts.OrgID, Name: "sender", Mode: carteiro.ModeLive, Permission: carteiro.PermissionSending})
		for _, req := range []testserver.Request{
			{Method: "GET", Path: path},
			{Method: "POST", Path: path, Body: map[string]string{"name": "x.example"}},
		} {
			req.Key = sending
			testserver.Expect(t, ts.Do(t, req), http.StatusForbidden, "FORBIDDEN")
		}
	})
}

// TestOrganizationsAreIsolated walks the whole route table: for every route
// that takes an id, another organization's key gets 404 for the first
// organization's object. A new route without a case here fails the test.
func TestOrganizationsAreIsolated(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		// The sender's token in the answer, to try it with another key (D59).
		ts := testserver.StartServer(t, b, map[string]string{"CARTEIRO_SENDER_TOKEN_IN_RESPONSE": "true", "CARTEIRO_INBOUND_ADDR": "127.0.0.1:0"})
		_, otherLive, otherTest := ts.NewOrg(t, "Other")
		d := createDomain(t, ts, ts.LiveKey, "first.example")
		publish(ts, d)
		testserver.Must(t, verify(t, ts, ts.LiveKey, d.ID).Status == "verified", "domain not verified")
		// A message received for first.example (D75).
		enableInbound(t, ts, ts.LiveKey, d.ID, true)
		err := sendSMTP(ts.InboundAddr(), "mta.sender.test", "x@sender.example", []string{"inbox@first.example"}, smallMessage("inbox@first.example", "private"))
		testserver.Must(t, err == nil, "inbound message refused: %v", err)
		var received string
		waitFor(t, func() bool {
			r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/inbound-emails", Key: ts.LiveKey})
			var page struct {
				InboundEmails []struct{ ID string } `json:"inboundEmails"`
			}
			r.Decode(t, &page)
			if len(page.InboundEmails) == 1 {
				received = page.InboundEmails[0].ID
			}
			return received != ""
		})
		email := send(t, ts, ts.LiveKey, map[string]any{"from": "a@first.example", "to": "b@y.example", "subject": "s",
			"text": "t", "tags": []map[string]string{{"name": "secret", "value": "first"}}})
		r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/senders", Key: ts.LiveKey, Body: map[string]string{"email": "me@gmail.example"}})
		testserver.Expect(t, r, 201, "")
		sender := r.JSON(t)
		r = ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/suppressions", Key: ts.LiveKey, Body: map[string]string{"email": "blocked@y.example"}})
		testserver.Expect(t, r, 201, "")
		suppression := r.JSON(t)["id"].(string)
		ts.DNS.SetA("hooks.first.example", "93.184.215.14") // a public address (D51)
		r = ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/webhooks", Key: ts.LiveKey,
			Body: map[string]any{"url": "https://hooks.first.example/in", "events": []string{"email.sent"}}})
		testserver.Expect(t, r, 201, "")
		hook := r.JSON(t)["id"].(string)
		r = ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/templates", Key: ts.LiveKey,
			Body: map[string]any{"name": "first-secret", "html": "<p>{{x}}</p>", "subject": "s"}})
		testserver.Expect(t, r, 201, "")
		tmpl := r.JSON(t)["id"].(string)
		r = ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/audiences", Key: ts.LiveKey, Body: map[string]any{"name": "first-list"}})
		testserver.Expect(t, r, 201, "")
		audience := r.JSON(t)["id"].(string)
		r = ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/audiences/" + audience + "/contacts", Key: ts.LiveKey,
			Body: map[string]any{"email": "member@y.example"}})
		testserver.Expect(t, r, 201, "")
		contact := r.JSON(t)["id"].(string)
		r = ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/broadcasts", Key: ts.LiveKey,
			Body: map[string]any{"audienceId": audience, "fromEmail": "news@first.example", "subject": "s", "text": "t"}})
		testserver.Expect(t, r, 201, "")
		broadcast := r.JSON(t)["id"].(string)

		// How to name an object of the first organization for each route.
		idFor := map[string]string{
			"GET /v1/product/domains/{id}":                                   d.ID,
			"POST /v1/product/domains/{id}/verify":                           d.ID,
			"DELETE /v1/product/domains/{id}":                                d.ID,
			"GET /v1/product/domains/{id}/warmup":                            d.ID,
			"GET /v1/product/inbound-emails/{id}":                            received,
			"GET /v1/product/inbound-emails/{id}/raw":                        received,
			"GET /v1/product/inbound-emails/{id}/attachments/{attachmentId}": received,
			"DELETE /v1/product/inbound-emails/{id}":                         received,
			"POST /v1/product/domains/{id}/inbound":                          d.ID,
			"GET /v1/product/emails/{id}":                                    email.ID,
			"GET /v1/product/emails/{id}/events":                             email.ID,
			"POST /v1/product/emails/{id}/cancel":                            email.ID,
			"POST /v1/product/emails/{id}/resend":                            email.ID,
			"DELETE /v1/product/senders/{id}":                                sender["id"].(string),
			"POST /v1/product/domains/{id}/health":                           d.ID,
			"GET /v1/product/suppressions/{id}":                              suppression,
			"DELETE /v1/product/suppressions/{id}":                           suppression,
			"POST /v1/product/suppressions/{id}/reactivate":                  suppression,
			"GET /v1/product/webhooks/{id}":                                  hook,
			"PUT /v1/product/webhooks/{id}":                                  hook,
			"PATCH /v1/product/webhooks/{id}":                                hook,
			"DELETE /v1/product/webhooks/{id}":                               hook,
			"GET /v1/product/webhooks/{id}/deliveries":                       hook,
			"POST /v1/product/webhooks/{id}/test":                            hook,
			"POST /v1/product/webhooks/{id}/rotate-secret":                   hook,
			"GET /v1/product/templates/{id}":                                 tmpl,
			"GET /v1/product/audiences/{id}":                                 audience,
			"GET /v1/product/broadcasts/{id}":                                broadcast,
			"POST /v1/product/broadcasts/{id}/send":                          broadcast,
			"POST /v1/product/broadcasts/{id}/cancel":                        broadcast,
			"PUT /v1/product/audiences/{id}":                                 audience,
			"DELETE /v1/product/audiences/{id}":                              audience,
			"POST /v1/product/audiences/{id}/contacts":                       audience,
			"GET /v1/product/audiences/{id}/contacts":                        audience,
			"POST /v1/product/audiences/{id}/contacts/bulk":                  audience,
			"PUT /v1/product/audiences/{id}/contacts/{contactId}":            audience,
			"DELETE /v1/product/audiences/{id}/contacts/{contactId}":         audience,
			"PATCH /v1/product/templates/{id}":                               tmpl,
			"DELETE /v1/product/templates/{id}":                              tmpl,
		}
		// Routes without an id: what the other organization must not see.
		notListed := func(id string) func(t *testing.T, r *testserver.Response) {
			return func(t *testing.T, r *testserver.Response) {
				testserver.Expect(t, r, 200, "")
				testserver.Must(t, !strings.Contains(string(r.Body), id), "other organization sees %s: %s", id, r.Body)
			}
		}
		listed := map[string]func(t *testing.T, r *testserver.Response){
			"GET /v1/product/domains":        notListed(d.ID),
			"GET /v1/product/emails":         notListed(email.ID),
			"GET /v1/product/emails/tags":    notListed("secret"),
			"GET /v1/product/senders":        notListed(sender["id"].(string)),
			"GET /v1/product/webhooks":       notListed(hook),
			"GET /v1/product/suppressions":   notListed(suppression),
			"GET /v1/product/templates":      notListed(tmpl),
			"GET /v1/product/audiences":      notListed(audience),
			"GET /v1/product/broadcasts":     notListed(broadcast),
			"GET /v1/product/inbound-emails": notListed(received),
			"GET /v1/product/stats": func(t *testing.T, r *testserver.Response) {
				testserver.Expect(t, r, 200, "")
				testserver.Must(t, strings.Contains(string(r.Body), `"totals":{"sent":0,`), "another organization's stats leak: %s", r.Body)
			},
		}
		// Routes that take a body naming the first organization's things.
		posted := map[string]struct {
			body   any
			status int
			code   string
		}{
			// The same domain name and sender address are free in another organization.
			"POST /v1/product/domains": {map[string]any{"name": "first.example"}, 201, ""},
			"POST /v1/product/senders": {map[string]any{"email": "me@gmail.example"}, 201, ""},
			// Another organization cannot send from the first one's verified domain.
			"POST /v1/product/emails": {map[string]any{"from": "a@first.example", "to": "b@y.example", "subject": "s", "text": "t"}, 403, "DOMAIN_NOT_VERIFIED"},
			// Nor use its sender's token.
			"POST /v1/product/senders/verify": {map[string]any{"token": sender["verificationToken"]}, 404, "NOT_FOUND"},
			// Suppressions are per organization: the same address is free.
			"POST /v1/product/suppressions": {map[string]any{"email": "blocked@y.example"}, 201, ""},
			// Webhook URLs are not unique: another organization may register the same one.
			"POST /v1/product/webhooks": {map[string]any{"url": "https://hooks.first.example/in", "events": []string{"email.sent"}}, 201, ""},
			// Template names are per organization.
			"POST /v1/product/templates": {map[string]any{"name": "first-secret", "html": "x"}, 201, ""},
			"POST /v1/product/audiences": {map[string]any{"name": "first-list"}, 201, ""},
			// Another organization cannot broadcast to the first one's audience.
			"POST /v1/product/broadcasts": {map[string]any{"audienceId": audience, "fromEmail": "news@first.example", "subject": "s", "text": "t"}, 422, "VALIDATION_ERROR"},
			// Erasing an address reaches only the caller's organization: the
			// first one's contact with it is checked below (D78).
			"POST /v1/product/privacy/erase": {map[string]any{"email": "member@y.example"}, 200, ""},
			// Rendering routes read nothing stored.
			"POST /v1/product/templates/preview":     {map[string]any{"html": "<p>{{x}}</p>"}, 200, ""},
			"POST /v1/product/templates/test-render": {map[string]any{"html": "<p>{{x}}</p>"}, 200, ""},
			"POST /v1/product/templates/format":      {map[string]any{"html": "<p>{{x}}</p>"}, 200, ""},
		}
		for _, rt := range ts.HTTP.Routes() {
			if !rt.Auth {
				continue
			}
			name := rt.Method + " " + rt.Path
			if strings.Contains(rt.Path, "{") {
				id, ok := idFor[name]
				if !ok {
					t.Errorf("route %s has no isolation case: add one", name)
					continue
				}
				path := strings.NewReplacer("{id}", id, "{contactId}", contact).Replace(rt.Path)
				for _, key := range []string{otherLive, otherTest} {
					// A valid body, so a 404 cannot be mistaken for input checks.
					body := map[string]any{}
					switch name {
					case "PATCH /v1/product/webhooks/{id}":
						body = map[string]any{"status": "paused"}
					case "PUT /v1/product/webhooks/{id}":
						body = map[string]any{"description": "taken over"}
					case "PATCH /v1/product/templates/{id}", "PUT /v1/product/audiences/{id}":
						body = map[string]any{"name": "taken over"}
					case "POST /v1/product/audiences/{id}/contacts":
						body = map[string]any{"email": "intruder@y.example"}
					case "POST /v1/product/audiences/{id}/contacts/bulk":
						body = map[string]any{"contacts": []map[string]any{{"email": "intruder@y.example"}}}
					case "PUT /v1/product/audiences/{id}/contacts/{contactId}":
						body = map[string]any{"firstName": "taken over"}
					case "POST /v1/product/domains/{id}/inbound":
						body = map[string]any{"enabled": true}
					}
					r := ts.Do(t, testserver.Request{Method: rt.Method, Path: path, Key: key, Body: body})
					if r.Status != http.StatusNotFound || r.ErrorCode() != "NOT_FOUND" {
						t.Errorf("%s with another organization's key: %d %s, want 404 NOT_FOUND", name, r.Status, r.Body)
					}
				}
				continue
			}
			if check, ok := listed[name]; ok {
				check(t, ts.Do(t, testserver.Request{Method: rt.Method, Path: rt.Path, Key: otherLive}))
				continue
			}
			if p, ok := posted[name]; ok {
				testserver.Expect(t, ts.Do(t, testserver.Request{Method: rt.Method, Path: rt.Path, Key: otherLive, Body: p.body}), p.status, p.code)
				continue
			}
			if name == "POST /v1/product/emails/batch" {
				r := ts.Do(t, testserver.Request{Method: rt.Method, Path: rt.Path, Key: otherLive,
					Body: []any{posted["POST /v1/product/emails"].body}})
				testserver.Expect(t, r, 202, "")
				testserver.Must(t, strings.Contains(string(r.Body), `"ok":false`) && strings.Contains(string(r.Body), "DOMAIN_NOT_VERIFIED"),
					"batch from another organization's domain: %s", r.Body)
				continue
			}
			t.Errorf("route %s has no isolation case: add one", name)
		}
		// Nor send with the first organization's template (D20: 422 on templateId).
		own := createDomain(t, ts, otherLive, "other.example")
		publish(ts, own)
		verify(t, ts, otherLive, own.ID)
		r = ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails", Key: otherLive,
			Body: map[string]any{"from": "a@other.example", "to": "b@y.example", "templateId": tmpl}})
		testserver.Expect(t, r, 422, "VALIDATION_ERROR")
		testserver.Must(t, strings.Contains(string(r.Body), `"field":"templateId"`), "another organization's template: %s", r.Body)
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/broadcasts/" + broadcast, Key: ts.LiveKey})
		testserver.Must(t, r.JSON(t)["status"] == "draft", "another organization moved the broadcast: %s", r.Body)
		// The first organization's audience and contact are untouched.
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/audiences/" + audience + "/contacts", Key: ts.LiveKey})
		testserver.Must(t, r.JSON(t)["total"] == 1.0 && strings.Contains(string(r.Body), `"firstName":null`), "audience changed: %s", r.Body)
		// The first organization's domain is untouched.
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains/" + d.ID, Key: ts.LiveKey})
		testserver.Expect(t, r, 200, "")
	})
}
