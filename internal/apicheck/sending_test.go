package apicheck

import (
	"net/http"
	"slices"
	"testing"
)

// Samples and cases for the sending routes: emails (api-v1.md 4.1), warmup
// (2.5, D34) and senders (4.9, D36).

const (
	emailID  = "0190f0c4-7a51-7c3e-9a2b-3f1d2e4c5b70"
	senderID = "0190f0c4-7a51-7c3e-9a2b-3f1d2e4c5b71"
	keyID    = "0190f0c4-7a51-7c3e-9a2b-3f1d2e4c5b72"
	token    = "0190f0c4-7a51-7c3e-9a2b-3f1d2e4c5b73"

	emailPath  = "/v1/product/emails/" + emailID
	senderPath = "/v1/product/senders/" + senderID
)

// email is a delivered email as GET /emails/:id answers it (2.1): every
// field present, the unset ones null.
func email() obj {
	return obj{
		"id": emailID, "from": "Acme <news@example.com>", "to": []string{"a@example.org"},
		"cc": nil, "bcc": nil, "subject": "Hello", "status": "delivered",
		"attempts": 1, "lastError": nil, "messageId": "<x@example.com>",
		"createdAt": createdAt, "scheduledAt": nil, "sentAt": createdAt, "deliveredAt": createdAt,
		"bouncedAt": nil, "failedAt": nil, "complainedAt": nil, "suppressedAt": nil,
		"openedAt": nil, "firstClickedAt": nil, "openCount": 0, "clickCount": 0,
		"tags": []obj{{"name": "category", "value": "welcome"}}, "html": "<p>Hi</p>", "text": "Hi",
		"apiKey": obj{"id": keyID, "name": "production"},
	}
}

func sendResult(status string) obj {
	return obj{"id": emailID, "status": status, "queuedAt": createdAt}
}

func warmup() obj {
	return obj{
		"domainId": domainID, "currentDay": 3, "dailyQuota": 200, "sentToday": 50,
		"remainingToday": 150, "quotaUsedPercent": 25, "lastSendDate": "2025-03-03",
	}
}

func sender() obj {
	return obj{
		"id": senderID, "email": "me@example.com", "displayName": "Me",
		"verifiedAt": createdAt, "active": true, "createdAt": createdAt,
	}
}

func createdSender() obj {
	return obj{
		"id": senderID, "email": "me@example.com", "displayName": nil, "verificationToken": token,
		"verifiedAt": nil, "active": true, "createdAt": createdAt,
	}
}

// noBody answers status with the Product headers and nothing else, as a 204 does.
func noBody(status int) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		productHeaders(w.Header())
		w.WriteHeader(status)
	}
}

func TestSendingRoutesConformingResponsesPass(t *testing.T) {
	t.Parallel()
	warmupExceeded := envelope("WARMUP_QUOTA_EXCEEDED", obj{"domainId": domainID, "dailyQuota": 50, "resetAt": "2025-03-02T00:00:00Z"})
	cases := []struct {
		name, method, path string
		handler            http.HandlerFunc
	}{
		{"send", "POST", "/v1/product/emails", answer(202, sendResult("queued"))},
		{"send replayed", "POST", "/v1/product/emails", answer(202, sendResult("scheduled"), with("Idempotent-Replayed", "true"))},
		{"send from an unverified domain", "POST", "/v1/product/emails", answer(403, envelope("DOMAIN_NOT_VERIFIED", obj{}))},
		{"send with a reused key", "POST", "/v1/product/emails", answer(409, envelope("IDEMPOTENCY_KEY_REUSED", obj{}))},
		{"send over the warmup quota", "POST", "/v1/product/emails", answer(429, warmupExceeded, with("Retry-After", "3600"))},
		{"send rate limited", "POST", "/v1/product/emails", answer(429, envelope("RATE_LIMIT_EXCEEDED", obj{}), with("Retry-After", "1"))},
		{"send with a bad attachment", "POST", "/v1/product/emails", answer(422, envelope("VALIDATION_ERROR", obj{"field": "attachments[0].cid", "reason": "required"}))},
		{"batch", "POST", "/v1/product/emails/batch", answer(202, []obj{
			{"ok": true, "data": sendResult("queued")},
			{"ok": false, "error": "DOMAIN_NOT_VERIFIED: O domínio do remetente não está verificado."},
		})},
		{"list emails", "GET", "/v1/product/emails", answer(200, obj{"emails": []obj{email(), edited(email(), func(e obj) {
			e["status"], e["subject"], e["tags"], e["apiKey"], e["html"], e["messageId"] = "scheduled", nil, nil, nil, nil, nil
			e["cc"], e["bcc"], e["scheduledAt"], e["sentAt"], e["deliveredAt"] = []string{"b@example.org"}, []string{}, createdAt, nil, nil
		})}, "nextCursor": "2025-03-01T10:00:00.123456Z"})},
		{"last page", "GET", "/v1/product/emails", answer(200, obj{"emails": []obj{}, "nextCursor": nil})},
		{"empty batch", "POST", "/v1/product/emails/batch", answer(422, envelope("VALIDATION_ERROR", obj{"field": "batch", "reason": "empty"}))},
		{"bad filter", "GET", "/v1/product/emails", answer(422, envelope("VALIDATION_ERROR", obj{"field": "limit", "reason": "out_of_range"}))},
		{"tags", "GET", "/v1/product/emails/tags", answer(200, obj{"tags": []obj{{"name": "category", "values": []string{"welcome"}}}})},
		{"get email", "GET", emailPath, answer(200, email())},
		{"timeline", "GET", emailPath + "/events", answer(200, obj{"id": emailID, "events": []obj{
			{"type": "queued", "timestamp": createdAt},
			{"type": "delivery_delayed", "timestamp": createdAt, "metadata": obj{"recipient": "a@example.org"}},
			{"type": "delivered", "timestamp": createdAt, "metadata": obj{"recipient": "a@example.org"}},
		}})},
		{"cancel", "POST", emailPath + "/cancel", noBody(204)},
		{"cancel with a body", "POST", emailPath + "/cancel", answer(422, envelope("VALIDATION_ERROR", obj{"field": "force", "reason": "unknown_field"}))},
		{"cancel too late", "POST", emailPath + "/cancel", answer(409, envelope("INVALID_STATE", obj{"status": "sent"}))},
		{"resend", "POST", emailPath + "/resend", answer(202, sendResult("queued"))},
		{"resend over the warmup quota", "POST", emailPath + "/resend", answer(429, warmupExceeded, with("Retry-After", "3600"))},
		{"warmup", "GET", domainPath + "/warmup", answer(200, warmup())},
		{"warmed", "GET", domainPath + "/warmup", answer(200, edited(warmup(), func(w obj) {
			w["currentDay"], w["dailyQuota"], w["remainingToday"], w["quotaUsedPercent"], w["lastSendDate"] = 16, 0, 0, 0, nil
		}))},
		{"warmup not started", "GET", domainPath + "/warmup", raw(200, "application/json", "null\n")},
		{"create sender", "POST", "/v1/product/senders", answer(201, createdSender())},
		{"duplicate sender", "POST", "/v1/product/senders", answer(409, envelope("CONFLICT", obj{"id": senderID}))},
		{"list senders", "GET", "/v1/product/senders", answer(200, obj{"senders": []obj{sender(), edited(sender(), func(s obj) {
			s["displayName"], s["verifiedAt"] = nil, nil
		})}})},
		{"verify sender", "POST", "/v1/product/senders/verify", answer(200, obj{"id": senderID, "email": "me@example.com"})},
		{"wrong token", "POST", "/v1/product/senders/verify", answer(404, envelope("NOT_FOUND", obj{}))},
		{"expired token", "POST", "/v1/product/senders/verify", answer(410, envelope("TOKEN_EXPIRED", obj{}))},
		{"delete sender", "DELETE", senderPath, noBody(204)},
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

func TestSendingRoutesNonConformingResponsesFail(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, method, path string
		handler            http.HandlerFunc
		want               []string // substrings of one problem
	}{
		{"send answering 200", "POST", "/v1/product/emails", answer(200, sendResult("queued")),
			[]string{"status 200 is not documented"}},
		{"send status outside queued|scheduled", "POST", "/v1/product/emails", answer(202, sendResult("sent")),
			[]string{"at /status"}},
		{"replay header other than true", "POST", "/v1/product/emails", answer(202, sendResult("queued"), with("Idempotent-Replayed", "yes")),
			[]string{"header Idempotent-Replayed"}},
		{"warmup error without its details", "POST", "/v1/product/emails", answer(429, envelope("WARMUP_QUOTA_EXCEEDED", obj{"domainId": domainID}), with("Retry-After", "9")),
			[]string{"missing properties 'dailyQuota', 'resetAt'"}},
		{"warmup error on a route without warmup", "GET", "/v1/product/emails", answer(429, envelope("WARMUP_QUOTA_EXCEEDED", obj{"domainId": domainID, "dailyQuota": 50, "resetAt": createdAt}), with("Retry-After", "9")),
			[]string{"at /error/code"}},
		{"batch item ok without data", "POST", "/v1/product/emails/batch", answer(202, []obj{{"ok": true}}),
			[]string{"body at /0"}},
		{"batch item error without its code", "POST", "/v1/product/emails/batch", answer(202, []obj{{"ok": false, "error": "Domain not verified."}}),
			[]string{"body at /0/error"}},
		{"batch item failed with data", "POST", "/v1/product/emails/batch", answer(202, []obj{{"ok": false, "error": "FORBIDDEN: no", "data": sendResult("queued")}}),
			[]string{"body at /0"}},
		{"batch as an object", "POST", "/v1/product/emails/batch", answer(202, obj{"results": []obj{}}),
			[]string{"want array"}},
		{"email missing a null field", "GET", emailPath, answer(200, edited(email(), func(e obj) { delete(e, "bouncedAt") })),
			[]string{"missing property 'bouncedAt'"}},
		{"email cc omitted instead of null", "GET", emailPath, answer(200, edited(email(), func(e obj) { e["cc"] = "b@example.org" })),
			[]string{"at /cc"}},
		{"email status complained", "GET", emailPath, answer(200, edited(email(), func(e obj) { e["status"] = "complained" })),
			[]string{"at /status"}},
		{"api key without a name", "GET", emailPath, answer(200, edited(email(), func(e obj) { e["apiKey"] = obj{"id": keyID} })),
			[]string{"at /apiKey"}},
		{"list without nextCursor", "GET", "/v1/product/emails", answer(200, obj{"emails": []obj{}}),
			[]string{"missing property 'nextCursor'"}},
		{"unknown event type", "GET", emailPath + "/events", answer(200, obj{"id": emailID, "events": []obj{{"type": "email.sent", "timestamp": createdAt}}}),
			[]string{"at /events/0/type"}},
		{"event metadata null", "GET", emailPath + "/events", answer(200, obj{"id": emailID, "events": []obj{{"type": "sent", "timestamp": createdAt, "metadata": nil}}}),
			[]string{"at /events/0/metadata"}},
		{"cancel answering 200", "POST", emailPath + "/cancel", answer(200, obj{"ok": true}),
			[]string{"status 200 is not documented", "documented: 204,"}},
		{"invalid state without the status", "POST", emailPath + "/cancel", answer(409, envelope("INVALID_STATE", obj{})),
			[]string{"missing property 'status'"}},
		{"warmup percent over 100", "GET", domainPath + "/warmup", answer(200, edited(warmup(), func(w obj) { w["quotaUsedPercent"] = 120 })),
			[]string{"at /quotaUsedPercent"}},
		{"warmup date with a time", "GET", domainPath + "/warmup", answer(200, edited(warmup(), func(w obj) { w["lastSendDate"] = createdAt })),
			[]string{"at /lastSendDate"}},
		{"warmup as an empty object", "GET", domainPath + "/warmup", answer(200, obj{}),
			[]string{"missing properties"}},
		{"created sender already verified", "POST", "/v1/product/senders", answer(201, edited(createdSender(), func(s obj) { s["verifiedAt"] = createdAt })),
			[]string{"at /verifiedAt"}},
		{"token that is not a uuid", "POST", "/v1/product/senders", answer(201, edited(createdSender(), func(s obj) { s["verificationToken"] = "abc" })),
			[]string{"at /verificationToken", "uuid"}},
		{"listed sender shows its token", "GET", "/v1/product/senders", answer(200, obj{"senders": []obj{edited(sender(), func(s obj) { s["verificationToken"] = token })}}),
			[]string{"additional properties 'verificationToken' not allowed"}},
		{"sender conflict without the id", "POST", "/v1/product/senders", answer(409, envelope("CONFLICT", obj{})),
			[]string{"missing property 'id'"}},
		{"delete sender answering 200", "DELETE", senderPath, answer(200, obj{"ok": true}),
			[]string{"status 200 is not documented"}},
	}
	c := loadChecker(t) // safe for concurrent use; loading is the slow part
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			wantProblem(t, roundTrip(t, tc.method, tc.path, tc.handler).check(c), tc.want...)
		})
	}
}

// Literal segments of the real document win over {id}, as in net/http:
// /emails/tags and /emails/batch are not emails, /senders/verify is no sender.
func TestSendingRoutesPreferLiteralSegments(t *testing.T) {
	t.Parallel()
	c := loadChecker(t)
	cases := []struct {
		method, path, wantID string
		wantAllowed          []string
	}{
		{"GET", "/v1/product/emails/tags", "listEmailTags", nil},
		{"HEAD", "/v1/product/emails/tags", "listEmailTags", nil},
		{"POST", "/v1/product/emails/batch", "sendEmailBatch", nil},
		{"GET", "/v1/product/emails/batch", "getEmail", nil}, // an unknown id: 404
		{"GET", emailPath, "getEmail", nil},
		{"POST", "/v1/product/emails/tags", "", []string{"GET"}},
		{"DELETE", emailPath, "", []string{"GET"}},
		{"PUT", "/v1/product/emails/batch", "", []string{"GET", "POST"}},
		{"POST", "/v1/product/senders/verify", "verifySender", nil},
		{"DELETE", "/v1/product/senders/verify", "deleteSender", nil},
		{"GET", "/v1/product/senders/verify", "", []string{"DELETE", "POST"}},
		{"DELETE", senderPath, "deleteSender", nil},
		{"GET", domainPath + "/warmup", "getDomainWarmup", nil},
		{"POST", emailPath + "/cancel", "cancelEmail", nil},
		{"GET", emailPath + "/cancel", "", []string{"POST"}},
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
