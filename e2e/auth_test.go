package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/httpapi"
	"github.com/carteiro/carteiro/internal/testserver"
)

func TestAuthentication(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		// The sender's token in the answer, to try it with another key (D59).
		ts := testserver.StartServer(t, b, map[string]string{"CARTEIRO_SENDER_TOKEN_IN_RESPONSE": "true", "CARTEIRO_INBOUND_ADDR": "127.0.0.1:0"})
		_, otherLive, otherTest := ts.NewOrg(t, "Other")
		fx := newIsolationFixture(t, ts)
		for _, rt := range ts.HTTP.Routes() {
			if !rt.Auth {
				continue
			}
			fx.check(t, rt, strings.TrimPrefix(rt.Path, "/v1/product"), func(method, path string, body any, mode string) *testserver.Response {
				key := otherLive
				if mode == "test" {
					key = otherTest
				}
				return ts.Do(t, testserver.Request{Method: method, Path: "/v1/product" + path, Key: key, Body: body})
			})
		}
		// Nor send with the first organization's template (D20: 422 on templateId).
		own := createDomain(t, ts, otherLive, "other.example")
		publish(ts, own)
		verify(t, ts, otherLive, own.ID)
		r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails", Key: otherLive,
			Body: map[string]any{"from": "a@other.example", "to": "b@y.example", "templateId": fx.tmpl}})
		testserver.Expect(t, r, 422, "VALIDATION_ERROR")
		testserver.Must(t, strings.Contains(string(r.Body), `"field":"templateId"`), "another organization's template: %s", r.Body)
		fx.untouched(t)
	})
}

// isolationFixture is one organization's objects of every kind, and how
// each route of the product API (or its dashboard twin) must answer
// another organization that names them.
type isolationFixture struct {
	ts                                         *testserver.TestServer
	domain                                     createdDomain
	email                                      string
	sender                                     map[string]any
	suppression, hook, tmpl, audience, contact string
	broadcast                                  string
	received                                   string // an inbound email (D75)
}

// newIsolationFixture creates the first organization's objects with its
// live key.
func newIsolationFixture(t *testing.T, ts *testserver.TestServer) *isolationFixture {
	fx := &isolationFixture{ts: ts}
	fx.domain = createDomain(t, ts, ts.LiveKey, "first.example")
	publish(ts, fx.domain)
	testserver.Must(t, verify(t, ts, ts.LiveKey, fx.domain.ID).Status == "verified", "domain not verified")
	// A message received for first.example (D75).
	enableInbound(t, ts, ts.LiveKey, fx.domain.ID, true)
	err := sendSMTP(ts.InboundAddr(), "mta.sender.test", "x@sender.example", []string{"inbox@first.example"}, smallMessage("inbox@first.example", "private"))
	testserver.Must(t, err == nil, "inbound message refused: %v", err)
	waitFor(t, func() bool {
		r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/inbound-emails", Key: ts.LiveKey})
		var page struct {
			InboundEmails []struct{ ID string } `json:"inboundEmails"`
		}
		r.Decode(t, &page)
		if len(page.InboundEmails) == 1 {
			fx.received = page.InboundEmails[0].ID
		}
		return fx.received != ""
	})
	fx.email = send(t, ts, ts.LiveKey, map[string]any{"from": "a@first.example", "to": "b@y.example", "subject": "s",
		"text": "t", "tags": []map[string]string{{"name": "secret", "value": "first"}}}).ID
	created := func(path string, body any) map[string]any {
		r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product" + path, Key: ts.LiveKey, Body: body})
		testserver.Expect(t, r, 201, "")
		return r.JSON(t)
	}
	fx.sender = created("/senders", map[string]string{"email": "me@gmail.example"})
	fx.suppression = created("/suppressions", map[string]string{"email": "blocked@y.example"})["id"].(string)
	// A public address (D51) that must never be dialled: the webhook listens
	// only to complaints, which no test using this fixture raises, so the
	// first organization's email.sent is sent nowhere (loopback only).
	ts.DNS.SetA("hooks.first.example", "93.184.215.14")
	fx.hook = created("/webhooks", map[string]any{"url": "https://hooks.first.example/in", "events": []string{"email.complained"}})["id"].(string)
	fx.tmpl = created("/templates", map[string]any{"name": "first-secret", "html": "<p>{{x}}</p>", "subject": "s"})["id"].(string)
	fx.audience = created("/audiences", map[string]any{"name": "first-list"})["id"].(string)
	fx.contact = created("/audiences/"+fx.audience+"/contacts", map[string]any{"email": "member@y.example"})["id"].(string)
	fx.broadcast = created("/broadcasts", map[string]any{"audienceId": fx.audience, "fromEmail": "news@first.example", "subject": "s", "text": "t"})["id"].(string)
	return fx
}

// check calls route rt (named by method and its path after the API's
// prefix) as another organization through do, in both modes where an id
// is named, and checks the answer; a route without a case fails the test.
func (fx *isolationFixture) check(t *testing.T, rt httpapi.Route, suffix string,
	do func(method, path string, body any, mode string) *testserver.Response) {
	t.Helper()
	name := rt.Method + " " + suffix
	idFor := map[string]string{
		"GET /domains/{id}":                                   fx.domain.ID,
		"POST /domains/{id}/verify":                           fx.domain.ID,
		"DELETE /domains/{id}":                                fx.domain.ID,
		"GET /domains/{id}/warmup":                            fx.domain.ID,
		"POST /domains/{id}/inbound":                          fx.domain.ID,
		"GET /inbound-emails/{id}":                            fx.received,
		"GET /inbound-emails/{id}/raw":                        fx.received,
		"GET /inbound-emails/{id}/attachments/{attachmentId}": fx.received,
		"DELETE /inbound-emails/{id}":                         fx.received,
		"GET /emails/{id}":                                    fx.email,
		"GET /emails/{id}/events":                             fx.email,
		"GET /emails/{id}/details":                            fx.email,
		"POST /emails/{id}/cancel":                            fx.email,
		"POST /emails/{id}/resend":                            fx.email,
		"DELETE /senders/{id}":                                fx.sender["id"].(string),
		"POST /domains/{id}/health":                           fx.domain.ID,
		"GET /suppressions/{id}":                              fx.suppression,
		"DELETE /suppressions/{id}":                           fx.suppression,
		"POST /suppressions/{id}/reactivate":                  fx.suppression,
		"GET /webhooks/{id}":                                  fx.hook,
		"PUT /webhooks/{id}":                                  fx.hook,
		"PATCH /webhooks/{id}":                                fx.hook,
		"DELETE /webhooks/{id}":                               fx.hook,
		"GET /webhooks/{id}/deliveries":                       fx.hook,
		"POST /webhooks/{id}/test":                            fx.hook,
		"POST /webhooks/{id}/rotate-secret":                   fx.hook,
		"GET /templates/{id}":                                 fx.tmpl,
		"GET /audiences/{id}":                                 fx.audience,
		"GET /broadcasts/{id}":                                fx.broadcast,
		"POST /broadcasts/{id}/send":                          fx.broadcast,
		"POST /broadcasts/{id}/cancel":                        fx.broadcast,
		"PUT /audiences/{id}":                                 fx.audience,
		"DELETE /audiences/{id}":                              fx.audience,
		"POST /audiences/{id}/contacts":                       fx.audience,
		"GET /audiences/{id}/contacts":                        fx.audience,
		"POST /audiences/{id}/contacts/bulk":                  fx.audience,
		"PUT /audiences/{id}/contacts/{contactId}":            fx.audience,
		"DELETE /audiences/{id}/contacts/{contactId}":         fx.audience,
		"PATCH /templates/{id}":                               fx.tmpl,
		"DELETE /templates/{id}":                              fx.tmpl,
	}
	// Routes without an id: what the other organization must not see.
	notListed := func(id string) func(t *testing.T, r *testserver.Response) {
		return func(t *testing.T, r *testserver.Response) {
			testserver.Expect(t, r, 200, "")
			testserver.Must(t, !strings.Contains(string(r.Body), id), "other organization sees %s: %s", id, r.Body)
		}
	}
	listed := map[string]func(t *testing.T, r *testserver.Response){
		"GET /domains":        notListed(fx.domain.ID),
		"GET /emails":         notListed(fx.email),
		"GET /emails/tags":    notListed("secret"),
		"GET /senders":        notListed(fx.sender["id"].(string)),
		"GET /webhooks":       notListed(fx.hook),
		"GET /suppressions":   notListed(fx.suppression),
		"GET /templates":      notListed(fx.tmpl),
		"GET /audiences":      notListed(fx.audience),
		"GET /broadcasts":     notListed(fx.broadcast),
		"GET /inbound-emails": notListed(fx.received),
		"GET /stats": func(t *testing.T, r *testserver.Response) {
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
		"POST /domains": {map[string]any{"name": "first.example"}, 201, ""},
		"POST /senders": {map[string]any{"email": "me@gmail.example"}, 201, ""},
		// Another organization cannot send from the first one's verified domain.
		"POST /emails": {map[string]any{"from": "a@first.example", "to": "b@y.example", "subject": "s", "text": "t"}, 403, "DOMAIN_NOT_VERIFIED"},
		// Nor use its sender's token.
		"POST /senders/verify": {map[string]any{"token": fx.sender["verificationToken"]}, 404, "NOT_FOUND"},
		// Suppressions are per organization: the same address is free.
		"POST /suppressions": {map[string]any{"email": "blocked@y.example"}, 201, ""},
		// Webhook URLs are not unique: another organization may register the same one.
		"POST /webhooks": {map[string]any{"url": "https://hooks.first.example/in", "events": []string{"email.complained"}}, 201, ""},
		// Template names are per organization.
		"POST /templates": {map[string]any{"name": "first-secret", "html": "x"}, 201, ""},
		"POST /audiences": {map[string]any{"name": "first-list"}, 201, ""},
		// Another organization cannot broadcast to the first one's audience.
		"POST /broadcasts": {map[string]any{"audienceId": fx.audience, "fromEmail": "news@first.example", "subject": "s", "text": "t"}, 422, "VALIDATION_ERROR"},
		// Erasing an address reaches only the caller's organization: the
		// first one's contact with it is checked below (D78).
		"POST /privacy/erase": {map[string]any{"email": "member@y.example"}, 200, ""},
		// Rendering routes read nothing stored.
		"POST /templates/preview":     {map[string]any{"html": "<p>{{x}}</p>"}, 200, ""},
		"POST /templates/test-render": {map[string]any{"html": "<p>{{x}}</p>"}, 200, ""},
		"POST /templates/format":      {map[string]any{"html": "<p>{{x}}</p>"}, 200, ""},
	}
	if strings.Contains(suffix, "{") {
		id, ok := idFor[name]
		if !ok {
			t.Errorf("route %s has no isolation case: add one", rt.Method+" "+rt.Path)
			return
		}
		path := strings.NewReplacer("{id}", id, "{contactId}", fx.contact).Replace(suffix)
		for _, mode := range []string{"live", "test"} {
			// A valid body, so a 404 cannot be mistaken for input checks.
			body := map[string]any{}
			switch name {
			case "PATCH /webhooks/{id}":
				body = map[string]any{"status": "paused"}
			case "PUT /webhooks/{id}":
				body = map[string]any{"description": "taken over"}
			case "PATCH /templates/{id}", "PUT /audiences/{id}":
				body = map[string]any{"name": "taken over"}
			case "POST /audiences/{id}/contacts":
				body = map[string]any{"email": "intruder@y.example"}
			case "POST /audiences/{id}/contacts/bulk":
				body = map[string]any{"contacts": []map[string]any{{"email": "intruder@y.example"}}}
			case "PUT /audiences/{id}/contacts/{contactId}":
				body = map[string]any{"firstName": "taken over"}
			case "POST /domains/{id}/inbound":
				body = map[string]any{"enabled": true}
			}
			r := do(rt.Method, path, body, mode)
			if r.Status != http.StatusNotFound || r.ErrorCode() != "NOT_FOUND" {
				t.Errorf("%s %s (%s) as another organization: %d %s, want 404 NOT_FOUND", rt.Method, rt.Path, mode, r.Status, r.Body)
			}
		}
		return
	}
	if check, ok := listed[name]; ok {
		check(t, do(rt.Method, suffix, nil, "live"))
		return
	}
	if p, ok := posted[name]; ok {
		testserver.Expect(t, do(rt.Method, suffix, p.body, "live"), p.status, p.code)
		return
	}
	if name == "POST /emails/batch" {
		r := do(rt.Method, suffix, []any{posted["POST /emails"].body}, "live")
		testserver.Expect(t, r, 202, "")
		testserver.Must(t, strings.Contains(string(r.Body), `"ok":false`) && strings.Contains(string(r.Body), "DOMAIN_NOT_VERIFIED"),
			"batch from another organization's domain: %s", r.Body)
		return
	}
	t.Errorf("route %s has no isolation case: add one", rt.Method+" "+rt.Path)
}

// untouched checks that the first organization's objects are as made.
func (fx *isolationFixture) untouched(t *testing.T) {
	t.Helper()
	ts := fx.ts
	r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/broadcasts/" + fx.broadcast, Key: ts.LiveKey})
	testserver.Must(t, r.JSON(t)["status"] == "draft", "another organization moved the broadcast: %s", r.Body)
	// The first organization's audience and contact are untouched.
	r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/audiences/" + fx.audience + "/contacts", Key: ts.LiveKey})
	testserver.Must(t, r.JSON(t)["total"] == 1.0 && strings.Contains(string(r.Body), `"firstName":null`), "audience changed: %s", r.Body)
	// The first organization's domain is untouched.
	r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains/" + fx.domain.ID, Key: ts.LiveKey})
	testserver.Expect(t, r, 200, "")
}
