package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/carteiro/carteiro/internal/testserver"
)

func TestSandboxLifecycles(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		cases := []struct {
			local    string
			status   string
			timeline []string
			check    func(t *testing.T, e emailJSON)
		}{
			{"anyone", "delivered", []string{"queued", "processing", "sent", "delivered"}, func(t *testing.T, e emailJSON) {
				testserver.Must(t, e.SentAt != nil && e.DeliveredAt != nil && e.Attempts == 1, "timestamps %+v", e)
			}},
			{"bounced", "bounced", []string{"queued", "processing", "sent", "bounced"}, func(t *testing.T, e emailJSON) {
				testserver.Must(t, e.BouncedAt != nil && e.LastError != nil, "bounce fields %+v", e)
			}},
			{"complained", "delivered", []string{"queued", "processing", "sent", "delivered", "complained"}, func(t *testing.T, e emailJSON) {
				testserver.Must(t, e.ComplainedAt != nil, "complainedAt missing")
			}},
			{"delayed", "delivered", []string{"queued", "processing", "delivery_delayed", "sent", "delivered"}, nil},
			{"failed", "failed", []string{"queued", "processing", "failed"}, func(t *testing.T, e emailJSON) {
				testserver.Must(t, e.FailedAt != nil, "failedAt missing")
			}},
			{"suppressed", "skipped", []string{"queued", "processing", "suppressed"}, func(t *testing.T, e emailJSON) {
				testserver.Must(t, e.SuppressedAt != nil, "suppressedAt missing")
			}},
			{"opened+label", "delivered", []string{"queued", "processing", "sent", "delivered", "opened"}, func(t *testing.T, e emailJSON) {
				testserver.Must(t, e.OpenedAt != nil && e.OpenCount == 1 && e.ClickCount == 0, "open fields %+v", e)
			}},
			{"clicked", "delivered", []string{"queued", "processing", "sent", "delivered", "opened", "clicked"}, func(t *testing.T, e emailJSON) {
				testserver.Must(t, e.FirstClickedAt != nil && e.ClickCount == 1 && e.OpenCount == 1, "click fields %+v", e)
			}},
		}
		for _, c := range cases {
			res := send(t, ts, ts.TestKey, map[string]any{
				"from": "Test <hello@unverified.example>", "to": c.local + "@sandbox.example", "subject": "Hi " + c.local,
				"html": "<p>Hello</p>", "tags": []map[string]string{{"name": "case", "value": "sandbox"}},
			})
			testserver.Must(t, res.Status == "queued" && res.QueuedAt != "", "send result %+v", res)
			e := waitStatus(t, ts, ts.TestKey, res.ID, c.status)
			got := eventTypes(events(t, ts, ts.TestKey, res.ID))
			if !slices.Equal(got, c.timeline) {
				t.Errorf("%s: timeline %v, want %v", c.local, got, c.timeline)
			}
			testserver.Must(t, e.From == "Test <hello@unverified.example>" && len(e.To) == 1 && e.To[0] == c.local+"@sandbox.example",
				"%s: addresses %+v", c.local, e)
			testserver.Must(t, e.APIKey != nil && e.APIKey.Name == "default test", "%s: apiKey %+v", c.local, e.APIKey)
			if c.check != nil {
				c.check(t, e)
			}
		}
	})
}

func TestTestModeIsIsolatedFromLive(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		res := send(t, ts, ts.TestKey, map[string]any{"from": "a@x.example", "to": "b@y.example", "subject": "s", "text": "t"})
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails/" + res.ID, Key: ts.LiveKey}), 404, "NOT_FOUND")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails/" + res.ID + "/events", Key: ts.LiveKey}), 404, "NOT_FOUND")
		r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails", Key: ts.LiveKey})
		testserver.Expect(t, r, 200, "")
		testserver.Must(t, len(r.JSON(t)["emails"].([]any)) == 0, "live key lists a test email: %s", r.Body)
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails", Key: ts.TestKey})
		testserver.Must(t, len(r.JSON(t)["emails"].([]any)) == 1, "test key does not list its email: %s", r.Body)
	})
}

func TestLiveSendNeedsVerifiedDomain(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		body := map[string]any{"from": "hello@unverified.example", "to": "b@y.example", "subject": "s", "text": "t"}
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails", Key: ts.LiveKey, Body: body}),
			http.StatusForbidden, "DOMAIN_NOT_VERIFIED")
		// A pending domain is not enough either.
		createDomain(t, ts, ts.LiveKey, "unverified.example")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails", Key: ts.LiveKey, Body: body}),
			http.StatusForbidden, "DOMAIN_NOT_VERIFIED")
		// isSandbox is exempt (D17, D30).
		body["isSandbox"] = true
		res := send(t, ts, ts.LiveKey, body)
		waitStatus(t, ts, ts.LiveKey, res.ID, "delivered")
		r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails", Key: ts.LiveKey})
		testserver.Must(t, len(r.JSON(t)["emails"].([]any)) == 1, "refused sends left emails: %s", r.Body)
	})
}

func TestSendValidation(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		base := func() map[string]any {
			return map[string]any{"from": "a@x.example", "to": []string{"b@y.example"}, "subject": "s", "html": "<p>h</p>"}
		}
		with := func(k string, v any) map[string]any { m := base(); m[k] = v; return m }
		without := func(k string) map[string]any { m := base(); delete(m, k); return m }
		many := make([]string, 51)
		for i := range many {
			many[i] = fmt.Sprintf("r%d@y.example", i)
		}
		cases := []struct {
			name   string
			body   any
			field  string
			reason string
		}{
			{"no from", without("from"), "from", "required"},
			{"no to", without("to"), "to", "required"},
			{"no subject", without("subject"), "subject", "required"},
			{"no content", without("html"), "html", "required"},
			{"bad from", with("from", "not an address"), "from", "invalid_email"},
			{"bad to item", with("to", []string{"ok@y.example", "bad@"}), "to[1]", "invalid_email"},
			{"object to", with("to", []map[string]string{{"email": "x@y.example"}, {"name": "n"}}), "to[1].email", "required"},
			{"to wrong type", with("to", 42), "to", "invalid_type"},
			{"cc bad", with("cc", "c@"), "cc", "invalid_email"},
			{"51 recipients", with("to", many), "to", "too_many"},
			{"subject CRLF", with("subject", "hi\r\nBcc: evil@x.example"), "subject", "header_injection"},
			{"name CRLF", with("from", "Evil\r\nBcc: x@y.example <a@x.example>"), "from", "header_injection"},
			{"address LF", with("to", "b@y.example\nBcc: c@d.example"), "to", "header_injection"},
			{"header CRLF", with("headers", map[string]string{"X-Campaign": "a\r\nBcc: x@y.example"}), "headers.X-Campaign", "header_injection"},
			{"reserved header", with("headers", map[string]string{"Bcc": "x@y.example"}), "headers.Bcc", "reserved_header"},
			{"tag chars", with("tags", []map[string]string{{"name": "bad tag", "value": "v"}}), "tags[0].name", "invalid_value"},
			{"attachment no cid", with("attachments", []map[string]string{{"filename": "a.png", "content": "aGk=", "contentType": "image/png", "disposition": "inline"}}), "attachments[0].cid", "required"},
			{"attachment base64", with("attachments", []map[string]string{{"filename": "a.txt", "content": "!!", "contentType": "text/plain", "disposition": "attachment"}}), "attachments[0].content", "invalid_base64"},
			{"scheduled far", with("scheduledAt", "2999-01-01T00:00:00Z"), "scheduledAt", "too_far_ahead"},
			{"scheduled garbage", with("scheduledAt", "tomorrow"), "scheduledAt", "invalid_date"},
			{"unknown field", with("bogus", 1), "bogus", "unknown_field"},
			{"template unknown", with("templateId", "0190aaaa-0000-7000-8000-000000000000"), "templateId", "invalid_value"},
		}
		for _, c := range cases {
			r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails", Key: ts.TestKey, Body: c.body})
			if r.Status != 422 || r.ErrorCode() != "VALIDATION_ERROR" {
				t.Errorf("%s: %d %s", c.name, r.Status, r.Body)
				continue
			}
			d := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)
			if d["field"] != c.field || d["reason"] != c.reason {
				t.Errorf("%s: details %v, want field %s reason %s", c.name, d, c.field, c.reason)
			}
		}
		r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails", Key: ts.TestKey})
		testserver.Must(t, len(r.JSON(t)["emails"].([]any)) == 0, "bad input created emails: %s", r.Body)
	})
}
