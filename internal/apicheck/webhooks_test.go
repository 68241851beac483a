package apicheck

import (
	"net/http"
	"testing"
)

// Samples and cases for webhooks (api-v1.md 2.11, 2.12, 4.7; D47-D52) and
// statistics (2.14, 4.8; D54), shaped as internal/httpapi encodes them.

const (
	webhookID  = "0190f0c4-7a51-7c3e-9a2b-3f1d2e4c5b80"
	deliveryID = "0190f0c4-7a51-7c3e-9a2b-3f1d2e4c5b81"
	eventID    = "0190f0c4-7a51-7c3e-9a2b-3f1d2e4c5b82"

	webhookPath = "/v1/product/webhooks/" + webhookID
)

// webhook is a webhook as POST, GET and PUT answer it: secret always null.
func webhook() obj {
	return obj{
		"id": webhookID, "url": "https://hooks.example.com/carteiro", "events": []string{"email.delivered", "email.bounced"},
		"status": "active", "description": "CRM sync", "createdAt": createdAt, "secret": nil, "secretPreview": "whsec_AbC…",
	}
}

func webhookSummary() obj {
	return obj{
		"id": webhookID, "url": "https://hooks.example.com/carteiro", "events": []string{"email.sent"},
		"status": "paused", "description": nil, "hasSecret": false, "createdAt": createdAt,
	}
}

// delivery is a failed attempt waiting for its retry (D49).
func delivery() obj {
	return obj{
		"id": deliveryID, "webhookId": webhookID, "emailEventId": eventID, "eventType": "email.delivered",
		"responseStatus": 500, "responseBody": "oops", "attempts": 1, "lastError": "HTTP 500",
		"status": "failed", "nextRunAt": "2025-03-01T10:00:05.123456Z", "createdAt": createdAt,
	}
}

func counts(n int) obj {
	return obj{"sent": n, "delivered": n, "failed": 0, "bounced": 0, "complained": 0, "opened": n, "clicked": 0}
}

func bucket(date string, n int) obj {
	b := counts(n)
	b["date"] = date
	return b
}

func stats() obj {
	return obj{
		"startDate": "2025-03-01T00:00:00Z", "endDate": "2025-03-02T12:30:00.5+01:00", "granularity": "day",
		"totals": counts(3),
		"series": []obj{bucket("2025-03-01T00:00:00Z", 1), bucket("2025-03-02T00:00:00Z", 2)},
	}
}

func TestWebhookAndStatsConformingResponsesPass(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, method, path string
		handler            http.HandlerFunc
	}{
		{"create webhook", "POST", "/v1/product/webhooks", answer(201, webhook())},
		{"create webhook without secret", "POST", "/v1/product/webhooks", answer(201, edited(webhook(), func(w obj) {
			w["secretPreview"], w["description"] = nil, nil
		}))},
		{"url refused", "POST", "/v1/product/webhooks", answer(422, envelope("VALIDATION_ERROR", obj{"field": "url", "reason": "not_allowed"}))},
		{"url invalid", "POST", "/v1/product/webhooks", answer(422, envelope("VALIDATION_ERROR", obj{"field": "url", "reason": "invalid_url"}))},
		{"unknown event type", "POST", "/v1/product/webhooks", answer(422, envelope("VALIDATION_ERROR", obj{"field": "events[1]", "reason": "invalid_value"}))},
		{"sending-only key", "POST", "/v1/product/webhooks", answer(403, envelope("FORBIDDEN", obj{}))},
		{"list webhooks", "GET", "/v1/product/webhooks", answer(200, obj{"webhooks": []obj{webhookSummary(), edited(webhookSummary(), func(w obj) {
			w["status"], w["hasSecret"], w["description"] = "disabled", true, "old"
		})}})},
		{"empty webhook list", "GET", "/v1/product/webhooks", answer(200, obj{"webhooks": []obj{}})},
		{"bad status filter", "GET", "/v1/product/webhooks", answer(422, envelope("VALIDATION_ERROR", obj{"field": "status", "reason": "invalid_value"}))},
		{"get webhook", "GET", webhookPath, answer(200, webhook())},
		{"unknown webhook", "GET", webhookPath, answer(404, envelope("NOT_FOUND", obj{}))},
		{"update webhook", "PUT", webhookPath, answer(200, edited(webhook(), func(w obj) { w["status"] = "disabled" }))},
		{"update with nothing", "PUT", webhookPath, answer(422, envelope("VALIDATION_ERROR", obj{"field": "url", "reason": "required"}))},
		{"update the secret", "PUT", webhookPath, answer(422, envelope("VALIDATION_ERROR", obj{"field": "secret", "reason": "unknown_field"}))},
		{"pause", "PATCH", webhookPath, answer(200, obj{"id": webhookID, "status": "paused"})},
		{"patch broken JSON", "PATCH", webhookPath, answer(400, envelope("INVALID_JSON", obj{}))},
		{"delete webhook", "DELETE", webhookPath, noBody(204)},
		{"deliveries", "GET", webhookPath + "/deliveries", answer(200, obj{"deliveries": []obj{delivery(), edited(delivery(), func(d obj) {
			// A test delivery not yet attempted.
			d["emailEventId"], d["responseStatus"], d["responseBody"], d["lastError"] = nil, nil, nil, nil
			d["attempts"], d["status"], d["eventType"] = 0, "pending", "email.delivery_delayed"
		})}})},
		{"deliveries limit too high", "GET", webhookPath + "/deliveries", answer(422, envelope("VALIDATION_ERROR", obj{"field": "limit", "reason": "out_of_range"}))},
		{"test webhook", "POST", webhookPath + "/test", answer(202, obj{"deliveryId": deliveryID})},
		{"test of an unknown type", "POST", webhookPath + "/test", answer(422, envelope("VALIDATION_ERROR", obj{"field": "eventType", "reason": "invalid_value"}))},
		{"rotate secret", "POST", webhookPath + "/rotate-secret", answer(200, obj{"webhookId": webhookID, "secret": "whsec_0123456789abcdefghijABCDEFGHIJ01"})},
		{"stats", "GET", "/v1/product/stats", answer(200, stats())},
		{"stats by week", "GET", "/v1/product/stats", answer(200, edited(stats(), func(s obj) {
			s["granularity"], s["series"] = "week", []obj{bucket("2025-02-24T00:00:00Z", 3)}
		}))},
		{"stats of an unknown domain", "GET", "/v1/product/stats", answer(404, envelope("NOT_FOUND", obj{}))},
		{"stats with a bad date", "GET", "/v1/product/stats", answer(422, envelope("VALIDATION_ERROR", obj{"field": "startDate", "reason": "invalid_date"}))},
	}
	c := loadChecker(t) // safe for concurrent use; loading is the slow part
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if err := roundTrip(t, tc.method, tc.path, tc.handler).check(c); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestWebhookAndStatsNonConformingResponsesFail(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, method, path string
		handler            http.HandlerFunc
		want               []string // substrings of one problem
	}{
		{"created webhook shows its secret", "POST", "/v1/product/webhooks", answer(201, edited(webhook(), func(w obj) { w["secret"] = "whsec_full" })),
			[]string{"at /secret", "want null"}},
		{"created webhook answered 200", "POST", "/v1/product/webhooks", answer(200, webhook()),
			[]string{"status 200 is not documented"}},
		{"webhook without secretPreview", "GET", webhookPath, answer(200, edited(webhook(), func(w obj) { delete(w, "secretPreview") })),
			[]string{"missing property 'secretPreview'"}},
		{"preview showing the whole secret", "GET", webhookPath, answer(200, edited(webhook(), func(w obj) { w["secretPreview"] = "whsec_0123456789abcdef" })),
			[]string{"at /secretPreview"}},
		{"event type without its prefix", "GET", webhookPath, answer(200, edited(webhook(), func(w obj) { w["events"] = []string{"delivered"} })),
			[]string{"at /events/0"}},
		{"events null", "GET", webhookPath, answer(200, edited(webhook(), func(w obj) { w["events"] = nil })),
			[]string{"at /events", "want array"}},
		{"list item with secretPreview", "GET", "/v1/product/webhooks", answer(200, obj{"webhooks": []obj{edited(webhookSummary(), func(w obj) { w["secretPreview"] = nil })}}),
			[]string{"additional properties 'secretPreview' not allowed"}},
		{"url error with another reason", "POST", "/v1/product/webhooks", answer(422, envelope("VALIDATION_ERROR", obj{"field": "url", "reason": "private_address"})),
			[]string{"at /error/details/reason"}},
		{"patch answering the webhook", "PATCH", webhookPath, answer(200, webhook()),
			[]string{"additional properties"}},
		{"patch to disabled", "PATCH", webhookPath, answer(200, obj{"id": webhookID, "status": "disabled"}),
			[]string{"at /status"}},
		{"delete answering 200", "DELETE", webhookPath, answer(200, obj{"ok": true}),
			[]string{"status 200 is not documented"}},
		{"delivery status outside D49", "GET", webhookPath + "/deliveries", answer(200, obj{"deliveries": []obj{edited(delivery(), func(d obj) { d["status"] = "retrying" })}}),
			[]string{"at /deliveries/0/status"}},
		{"delivery responseStatus as text", "GET", webhookPath + "/deliveries", answer(200, obj{"deliveries": []obj{edited(delivery(), func(d obj) { d["responseStatus"] = "500" })}}),
			[]string{"at /deliveries/0/responseStatus"}},
		{"delivery without nextRunAt", "GET", webhookPath + "/deliveries", answer(200, obj{"deliveries": []obj{edited(delivery(), func(d obj) { d["nextRunAt"] = nil })}}),
			[]string{"at /deliveries/0/nextRunAt"}},
		{"deliveries of a route without 409", "GET", webhookPath + "/deliveries", answer(409, envelope("CONFLICT", obj{"id": webhookID})),
			[]string{"status 409 is not documented"}},
		{"test answering 200", "POST", webhookPath + "/test", answer(200, obj{"deliveryId": deliveryID}),
			[]string{"status 200 is not documented"}},
		{"test delivery id not a uuid", "POST", webhookPath + "/test", answer(202, obj{"deliveryId": "42"}),
			[]string{"at /deliveryId", "uuid"}},
		{"rotated secret without the prefix", "POST", webhookPath + "/rotate-secret", answer(200, obj{"webhookId": webhookID, "secret": "0123456789abcdefghijABCDEFGHIJ01"}),
			[]string{"at /secret"}},
		{"stats without series", "GET", "/v1/product/stats", answer(200, edited(stats(), func(s obj) { delete(s, "series") })),
			[]string{"missing property 'series'"}},
		{"stats counter missing", "GET", "/v1/product/stats", answer(200, edited(stats(), func(s obj) { delete(s["totals"].(obj), "clicked") })),
			[]string{"at /totals", "missing property 'clicked'"}},
		{"stats counter as a float", "GET", "/v1/product/stats", answer(200, edited(stats(), func(s obj) { s["series"].([]obj)[0]["sent"] = 1.5 })),
			[]string{"at /series/0/sent", "want integer"}},
		{"bucket not in UTC", "GET", "/v1/product/stats", answer(200, edited(stats(), func(s obj) { s["series"].([]obj)[1]["date"] = "2025-03-02T00:00:00-03:00" })),
			[]string{"at /series/1/date"}},
		{"bucket as a date", "GET", "/v1/product/stats", answer(200, edited(stats(), func(s obj) { s["series"].([]obj)[1]["date"] = "2025-03-02" })),
			[]string{"at /series/1/date"}},
		{"unknown granularity", "GET", "/v1/product/stats", answer(200, edited(stats(), func(s obj) { s["granularity"] = "year" })),
			[]string{"at /granularity"}},
	}
	c := loadChecker(t) // safe for concurrent use; loading is the slow part
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			wantProblem(t, roundTrip(t, tc.method, tc.path, tc.handler).check(c), tc.want...)
		})
	}
}
