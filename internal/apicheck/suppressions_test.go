package apicheck

import (
	"net/http"
	"testing"
)

// Samples and cases for suppressions (api-v1.md 2.10, 3.4, 4.6; D44-D46) and
// the domain health diagnostic (4.2; D33), shaped as internal/httpapi
// encodes them.

const (
	suppressionID = "0190f0c4-7a51-7c3e-9a2b-3f1d2e4c5b90"

	suppressionPath = "/v1/product/suppressions/" + suppressionID
	healthPath      = "/v1/product/domains/" + domainID + "/health"
)

// suppression is a manual block without end, as POST answers it.
func suppression() obj {
	return obj{
		"id": suppressionID, "email": "someone@example.org", "reason": "manual", "source": "manual",
		"category": "all", "status": "active", "expiresAt": nil, "createdAt": createdAt,
	}
}

// ispBlock is an automatic policy block past its 7 days (D46).
func ispBlock() obj {
	return edited(suppression(), func(s obj) {
		s["reason"], s["source"], s["status"], s["expiresAt"] = "isp_block", "auto", "expired", "2025-03-08T10:00:00.123456Z"
	})
}

// domainHealth is a diagnostic of a domain with a missing DMARC record and
// one listing, localized messages included.
func domainHealth() obj {
	return obj{
		"domainId": domainID, "checkedAt": createdAt, "score": 70,
		"dns": obj{
			"spf": check("pass", "bounces.carteiro.localhost."), "dkim": check("pass", "v=DKIM1; k=rsa; p=MIIB"),
			"dmarc": check("fail"),
		},
		"blacklists": []obj{
			{"list": "zen.spamhaus.org", "target": "192.0.2.10", "listed": true, "detail": "https://www.spamhaus.org/query/ip/192.0.2.10"},
			{"list": "bl.spamcop.net", "target": "192.0.2.10", "listed": false},
			{"list": "dbl.spamhaus.org", "target": "example.com", "listed": false, "detail": "lookup failed"},
		},
		"metrics": obj{"windowDays": 30, "sent": 1200, "bounceRate": 0.0125, "complaintRate": 0},
		"recommendations": []obj{
			{"code": "blocklisted", "severity": "critical", "message": "192.0.2.10 is listed on zen.spamhaus.org."},
			{"code": "publish_dmarc", "severity": "warning", "message": "Publish a DMARC record at _dmarc.example.com."},
		},
	}
}

func TestSuppressionAndHealthConformingResponsesPass(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, method, path string
		handler            http.HandlerFunc
	}{
		{"list", "GET", "/v1/product/suppressions", answer(200, obj{
			"suppressions": []obj{suppression(), ispBlock()}, "nextCursor": "2025-03-01T10:00:00.123456Z",
		})},
		{"last page", "GET", "/v1/product/suppressions", answer(200, obj{"suppressions": []obj{}, "nextCursor": nil})},
		{"unsubscribe is marketing", "GET", "/v1/product/suppressions", answer(200, obj{"suppressions": []obj{edited(suppression(), func(s obj) {
			s["reason"], s["source"], s["category"] = "unsubscribe", "auto", "marketing"
		})}, "nextCursor": nil})},
		{"bad status filter", "GET", "/v1/product/suppressions", answer(422, envelope("VALIDATION_ERROR", obj{"field": "status", "reason": "invalid_value"}))},
		{"bad cursor", "GET", "/v1/product/suppressions", answer(422, envelope("VALIDATION_ERROR", obj{"field": "after", "reason": "invalid_date"}))},
		{"limit too high", "GET", "/v1/product/suppressions", answer(422, envelope("VALIDATION_ERROR", obj{"field": "limit", "reason": "out_of_range"}))},
		{"sending-only key", "GET", "/v1/product/suppressions", answer(403, envelope("FORBIDDEN", obj{}))},
		{"create", "POST", "/v1/product/suppressions", answer(201, suppression())},
		{"create with an end", "POST", "/v1/product/suppressions", answer(201, edited(suppression(), func(s obj) {
			s["reason"], s["expiresAt"] = "complaint", "2025-04-01T00:00:00Z"
		}))},
		{"already suppressed", "POST", "/v1/product/suppressions", answer(409, envelope("CONFLICT", obj{"id": otherID}))},
		{"already suppressed, lost race", "POST", "/v1/product/suppressions", answer(409, envelope("CONFLICT", obj{}))},
		{"automatic reason", "POST", "/v1/product/suppressions", answer(422, envelope("VALIDATION_ERROR", obj{"field": "reason", "reason": "invalid_value"}))},
		{"end in the past", "POST", "/v1/product/suppressions", answer(422, envelope("VALIDATION_ERROR", obj{"field": "expiresAt", "reason": "in_the_past"}))},
		{"create broken JSON", "POST", "/v1/product/suppressions", answer(400, envelope("INVALID_JSON", obj{}))},
		{"get expired", "GET", suppressionPath, answer(200, ispBlock())},
		{"get reactivated", "GET", suppressionPath, answer(200, edited(suppression(), func(s obj) { s["status"] = "inactive" }))},
		{"unknown suppression", "GET", suppressionPath, answer(404, envelope("NOT_FOUND", obj{}))},
		{"delete", "DELETE", suppressionPath, noBody(204)},
		{"delete unknown", "DELETE", suppressionPath, answer(404, envelope("NOT_FOUND", obj{}))},
		{"reactivate", "POST", suppressionPath + "/reactivate", noBody(204)},
		{"reactivate with a field", "POST", suppressionPath + "/reactivate", answer(422, envelope("VALIDATION_ERROR", obj{"field": "x", "reason": "unknown_field"}))},
		{"wrong method", "PUT", suppressionPath, answer(405, envelope("METHOD_NOT_ALLOWED", obj{}), with("Allow", "DELETE, GET, HEAD"))},
		{"health", "POST", healthPath, answer(200, domainHealth())},
		{"health of a quiet domain", "POST", healthPath, answer(200, edited(domainHealth(), func(h obj) {
			h["score"], h["blacklists"] = 100, []obj{}
			h["metrics"] = obj{"windowDays": 30, "sent": 0, "bounceRate": 0, "complaintRate": 0}
			h["dns"].(obj)["dmarc"] = check("pending")
			h["recommendations"] = []obj{{"code": "low_volume", "severity": "info", "message": "Poucos envios."}}
		}))},
		{"health of an unknown domain", "POST", healthPath, answer(404, envelope("NOT_FOUND", obj{}))},
		{"health with a body", "POST", healthPath, answer(422, envelope("VALIDATION_ERROR", obj{"field": "x", "reason": "unknown_field"}))},
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

func TestSuppressionAndHealthNonConformingResponsesFail(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, method, path string
		handler            http.HandlerFunc
		want               []string // substrings of one problem
	}{
		{"created answered 200", "POST", "/v1/product/suppressions", answer(200, suppression()),
			[]string{"status 200 is not documented"}},
		{"expiresAt left out", "GET", suppressionPath, answer(200, edited(suppression(), func(s obj) { delete(s, "expiresAt") })),
			[]string{"missing property 'expiresAt'"}},
		{"unknown reason", "GET", suppressionPath, answer(200, edited(suppression(), func(s obj) { s["reason"] = "spam" })),
			[]string{"at /reason"}},
		{"category outside D45", "GET", suppressionPath, answer(200, edited(suppression(), func(s obj) { s["category"] = "transactional" })),
			[]string{"at /category"}},
		{"source outside 2.10", "GET", suppressionPath, answer(200, edited(suppression(), func(s obj) { s["source"] = "api" })),
			[]string{"at /source"}},
		{"status outside 3.4", "GET", suppressionPath, answer(200, edited(suppression(), func(s obj) { s["status"] = "deleted" })),
			[]string{"at /status"}},
		{"expiresAt not a timestamp", "GET", suppressionPath, answer(200, edited(suppression(), func(s obj) { s["expiresAt"] = "2025-04-01" })),
			[]string{"at /expiresAt"}},
		{"id not a uuid", "GET", suppressionPath, answer(200, edited(suppression(), func(s obj) { s["id"] = "42" })),
			[]string{"at /id", "uuid"}},
		{"extra field", "GET", suppressionPath, answer(200, edited(suppression(), func(s obj) { s["orgId"] = otherID })),
			[]string{"additional properties 'orgId' not allowed"}},
		{"list without nextCursor", "GET", "/v1/product/suppressions", answer(200, obj{"suppressions": []obj{}}),
			[]string{"missing property 'nextCursor'"}},
		{"list as a bare array", "GET", "/v1/product/suppressions", answer(200, []obj{suppression()}),
			[]string{"want object"}},
		{"list null", "GET", "/v1/product/suppressions", answer(200, obj{"suppressions": nil, "nextCursor": nil}),
			[]string{"at /suppressions", "want array"}},
		{"conflict id not a uuid", "POST", "/v1/product/suppressions", answer(409, envelope("CONFLICT", obj{"id": "someone@example.org"})),
			[]string{"at /error/details/id"}},
		{"conflict with another code", "POST", "/v1/product/suppressions", answer(409, envelope("INVALID_STATE", obj{"status": "active"})),
			[]string{"at /error/code"}},
		{"get answering 409", "GET", suppressionPath, answer(409, envelope("CONFLICT", obj{})),
			[]string{"status 409 is not documented"}},
		{"delete answering 200", "DELETE", suppressionPath, answer(200, obj{"ok": true}),
			[]string{"status 200 is not documented"}},
		{"reactivate answering the suppression", "POST", suppressionPath + "/reactivate", answer(200, suppression()),
			[]string{"status 200 is not documented"}},
		{"health answered 202", "POST", healthPath, answer(202, domainHealth()),
			[]string{"status 202 is not documented"}},
		{"score over 100", "POST", healthPath, answer(200, edited(domainHealth(), func(h obj) { h["score"] = 101 })),
			[]string{"at /score"}},
		{"score as a float", "POST", healthPath, answer(200, edited(domainHealth(), func(h obj) { h["score"] = 87.5 })),
			[]string{"at /score", "want integer"}},
		{"rate in percent", "POST", healthPath, answer(200, edited(domainHealth(), func(h obj) { h["metrics"].(obj)["bounceRate"] = 1.25 })),
			[]string{"at /metrics/bounceRate"}},
		{"metrics without windowDays", "POST", healthPath, answer(200, edited(domainHealth(), func(h obj) { delete(h["metrics"].(obj), "windowDays") })),
			[]string{"at /metrics", "missing property 'windowDays'"}},
		{"dns with ownership", "POST", healthPath, answer(200, edited(domainHealth(), func(h obj) { h["dns"].(obj)["ownership"] = check("pass") })),
			[]string{"at /dns", "additional properties 'ownership' not allowed"}},
		{"dns found null", "POST", healthPath, answer(200, edited(domainHealth(), func(h obj) { h["dns"].(obj)["spf"].(obj)["found"] = nil })),
			[]string{"at /dns/spf/found", "want array"}},
		{"listing without target", "POST", healthPath, answer(200, edited(domainHealth(), func(h obj) { delete(h["blacklists"].([]obj)[1], "target") })),
			[]string{"at /blacklists/1", "missing property 'target'"}},
		{"listed as text", "POST", healthPath, answer(200, edited(domainHealth(), func(h obj) { h["blacklists"].([]obj)[0]["listed"] = "yes" })),
			[]string{"at /blacklists/0/listed"}},
		{"unknown severity", "POST", healthPath, answer(200, edited(domainHealth(), func(h obj) { h["recommendations"].([]obj)[0]["severity"] = "error" })),
			[]string{"at /recommendations/0/severity"}},
		{"recommendation without message", "POST", healthPath, answer(200, edited(domainHealth(), func(h obj) { delete(h["recommendations"].([]obj)[1], "message") })),
			[]string{"at /recommendations/1", "missing property 'message'"}},
		{"no recommendation", "POST", healthPath, answer(200, edited(domainHealth(), func(h obj) { h["recommendations"] = []obj{} })),
			[]string{"at /recommendations"}},
		{"health without the rate-limit headers", "POST", healthPath, answer(200, domainHealth(), without("X-RateLimit-Remaining")),
			[]string{"X-RateLimit-Remaining"}},
	}
	c := loadChecker(t) // safe for concurrent use; loading is the slow part
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			wantProblem(t, roundTrip(t, tc.method, tc.path, tc.handler).check(c), tc.want...)
		})
	}
}
