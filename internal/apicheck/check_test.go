package apicheck

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/carteiro/carteiro/docs"
)

const domainPath = "/v1/product/domains/" + domainID

func TestConformingResponsesPass(t *testing.T) {
	t.Parallel()
	openapiJSON, err := docs.OpenAPIJSON()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, method, path string
		handler            http.HandlerFunc
	}{
		{"create domain", "POST", "/v1/product/domains", answer(201, createdDomain())},
		{"list domains", "GET", "/v1/product/domains", answer(200, obj{"domains": []obj{domain(), edited(domain(), func(d obj) {
			d["status"], d["verifiedAt"], d["lastCheckAt"] = "verified", createdAt, createdAt
			d["dkimPublicKey"] = nil
		})}})},
		{"empty domain list", "GET", "/v1/product/domains", answer(200, obj{"domains": []obj{}})},
		{"get domain", "GET", domainPath, answer(200, domainDetail())},
		{"verify domain", "POST", domainPath + "/verify", answer(202, verification())},
		{"delete domain", "DELETE", domainPath, answer(200, obj{"ok": true})},
		{"unknown domain", "GET", domainPath, answer(404, envelope("NOT_FOUND", obj{}))},
		{"no key", "GET", "/v1/product/domains", answer(401, envelope("MISSING_API_KEY", obj{}))},
		{"duplicate domain", "POST", "/v1/product/domains", answer(409, envelope("CONFLICT", obj{"id": otherID}))},
		{"invalid name", "POST", "/v1/product/domains", answer(422, envelope("VALIDATION_ERROR", obj{"field": "name", "reason": "invalid_domain"}))},
		{"broken JSON", "POST", "/v1/product/domains", answer(400, envelope("INVALID_JSON", obj{}))},
		{"reauthentication required", "DELETE", domainPath, answer(403, envelope("REAUTH_REQUIRED", obj{}))},
		{"delete rate limited", "DELETE", domainPath, answer(429, envelope("RATE_LIMIT_EXCEEDED", obj{}), with("Retry-After", "42"), with("X-RateLimit-Remaining", "0"))},
		{"internal error", "GET", "/v1/product/domains", answer(500, envelope("INTERNAL_ERROR", obj{"requestId": "req-1"}))},
		{"storage down", "POST", domainPath + "/verify", answer(503, envelope("SERVICE_UNAVAILABLE", obj{}))},
		{"openapi.json", "GET", "/v1/product/openapi.json", raw(200, "application/json", string(openapiJSON))},
		{"healthz", "GET", "/healthz", raw(200, "application/json", `{"status":"ok"}`, without("X-RateLimit-Limit"), without("X-RateLimit-Remaining"), without("X-RateLimit-Reset"), without("Content-Language"))},
		{"readyz", "GET", "/readyz", raw(200, "application/json", `{"status":"ok"}`)},
		{"not ready", "GET", "/readyz", answer(503, envelope("SERVICE_UNAVAILABLE", obj{}))},
		{"metrics", "GET", "/metrics", raw(200, "text/plain; version=0.0.4; charset=utf-8; escaping=underscores", "# HELP up 1\nup 1\n")},
		{"metrics without token", "GET", "/metrics", answer(401, envelope("MISSING_API_KEY", obj{}))},
		{"head of a GET route", "HEAD", "/v1/product/domains", answer(200, obj{"domains": []obj{}})},
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

func TestNonConformingResponsesFail(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, method, path string
		handler            http.HandlerFunc
		want               []string // substrings of one problem
	}{
		{"missing required field", "GET", "/v1/product/domains", answer(200, obj{"domains": []obj{edited(domain(), func(d obj) { delete(d, "dkimSelector") })}}),
			[]string{"body at /domains/0", "missing property 'dkimSelector'"}},
		{"wrong type", "POST", "/v1/product/domains", answer(201, edited(createdDomain(), func(d obj) { d["records"].([]obj)[2]["ttl"] = "3600" })),
			[]string{"body at /records/2/ttl", "want integer"}},
		{"extra field", "GET", domainPath, answer(200, edited(domainDetail(), func(d obj) { d["dkim_selector"] = "cart1" })),
			[]string{"body", "additional properties 'dkim_selector' not allowed"}},
		{"misnamed field", "GET", domainPath, answer(200, edited(domainDetail(), func(d obj) { d["dnsRecords"] = d["dnsRecordsToPublish"]; delete(d, "dnsRecordsToPublish") })),
			[]string{"missing property 'dnsRecordsToPublish'"}},
		{"null where not nullable", "GET", "/v1/product/domains", answer(200, obj{"domains": []obj{edited(domain(), func(d obj) { d["createdAt"] = nil })}}),
			[]string{"at /domains/0/createdAt", "got null, want string"}},
		{"nil slice marshalled as null", "POST", domainPath + "/verify", answer(202, edited(verification(), func(v obj) { v["checks"].(obj)["dmarc"].(obj)["found"] = nil })),
			[]string{"at /checks/dmarc/found", "got null, want array"}},
		{"missing check", "POST", domainPath + "/verify", answer(202, edited(verification(), func(v obj) { delete(v["checks"].(obj), "ownership") })),
			[]string{"at /checks", "missing property 'ownership'"}},
		{"value outside the enum", "GET", domainPath, answer(200, edited(domainDetail(), func(d obj) { d["status"] = "active" })),
			[]string{"at /status"}},
		{"malformed uuid", "POST", "/v1/product/domains", answer(201, edited(createdDomain(), func(d obj) { d["id"] = "42" })),
			[]string{"at /id", "uuid"}},
		{"malformed timestamp", "GET", domainPath, answer(200, edited(domainDetail(), func(d obj) { d["createdAt"] = "2025-03-01 10:00" })),
			[]string{"at /createdAt", "date-time"}},
		{"undocumented status", "GET", "/v1/product/domains", answer(201, obj{"domains": []obj{}}),
			[]string{"status 201 is not documented for GET /v1/product/domains", "documented: 200, 401"}},
		{"404 on a route without ids", "GET", "/v1/product/domains", answer(404, envelope("NOT_FOUND", obj{})),
			[]string{"status 404 is not documented"}},
		{"wrong error code for the status", "GET", domainPath, answer(404, envelope("ROUTE_NOT_FOUND", obj{})),
			[]string{"at /error/code", "NOT_FOUND"}},
		{"unknown error code", "GET", "/v1/product/domains", answer(403, envelope("NOPE", obj{})),
			[]string{"at /error/code"}},
		{"details not an object", "GET", domainPath, answer(404, obj{"error": obj{"code": "NOT_FOUND", "message": "m", "details": []string{}}}),
			[]string{"at /error/details", "want object"}},
		{"envelope without details", "GET", domainPath, answer(404, obj{"error": obj{"code": "NOT_FOUND", "message": "m"}}),
			[]string{"missing property 'details'"}},
		{"validation error without reason", "POST", "/v1/product/domains", answer(422, envelope("VALIDATION_ERROR", obj{"field": "name"})),
			[]string{"at /error/details", "missing property 'reason'"}},
		{"internal error without requestId", "GET", "/v1/product/domains", answer(500, envelope("INTERNAL_ERROR", obj{})),
			[]string{"missing property 'requestId'"}},
		{"conflict without the existing id", "POST", "/v1/product/domains", answer(409, envelope("CONFLICT", obj{})),
			[]string{"missing property 'id'"}},
		{"missing rate-limit header", "GET", "/v1/product/domains", answer(200, obj{"domains": []obj{}}, without("X-RateLimit-Remaining")),
			[]string{"required header X-RateLimit-Remaining is missing"}},
		{"rate-limit header not an integer", "GET", "/v1/product/domains", answer(200, obj{"domains": []obj{}}, with("X-RateLimit-Limit", "lots")),
			[]string{"header X-RateLimit-Limit", "not of the documented type"}},
		{"negative rate-limit header", "GET", "/v1/product/domains", answer(200, obj{"domains": []obj{}}, with("X-RateLimit-Reset", "-1")),
			[]string{"header X-RateLimit-Reset", "minimum"}},
		{"unsupported language", "GET", "/v1/product/domains", answer(200, obj{"domains": []obj{}}, with("Content-Language", "fr")),
			[]string{"header Content-Language"}},
		{"missing request id", "GET", "/v1/product/domains", answer(200, obj{"domains": []obj{}}, without("X-Request-Id")),
			[]string{"required header X-Request-Id is missing"}},
		{"429 without Retry-After", "GET", "/v1/product/domains", answer(429, envelope("RATE_LIMIT_EXCEEDED", obj{})),
			[]string{"required header Retry-After is missing"}},
		{"undocumented media type", "GET", "/v1/product/domains", raw(200, "text/html", "<p>hi</p>"),
			[]string{"Content-Type text/html is not documented", "application/json"}},
		{"missing Content-Type", "GET", "/v1/product/domains", raw(200, "", `{"domains":[]}`, without("Content-Type")),
			[]string{"Content-Type"}},
		{"body not JSON", "GET", "/v1/product/domains", raw(200, "application/json", `{"domains":[`),
			[]string{"the body is not JSON"}},
		{"empty JSON body", "POST", domainPath + "/verify", raw(202, "application/json", ""),
			[]string{"the body is empty"}},
		{"healthz with another status word", "GET", "/healthz", raw(200, "application/json", `{"status":"up"}`),
			[]string{"at /status"}},
		{"metrics as JSON", "GET", "/metrics", answer(200, obj{}),
			[]string{"Content-Type application/json is not documented"}},
	}
	c := loadChecker(t) // safe for concurrent use; loading is the slow part
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			wantProblem(t, roundTrip(t, tc.method, tc.path, tc.handler).check(c), tc.want...)
		})
	}
}

// Unknown routes and methods are answered by the router, not an operation:
// the checker wants the error envelope with the code of D11.
func TestUnroutedRequests(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, method, path string
		handler            http.HandlerFunc
		want               []string // nil: must pass
	}{
		{"unknown Product route", "GET", "/v1/product/nope", answer(404, envelope("ROUTE_NOT_FOUND", obj{})), nil},
		{"trailing slash is another route", "GET", "/v1/product/domains/", answer(404, envelope("ROUTE_NOT_FOUND", obj{})), nil},
		{"unknown root route", "GET", "/nope", raw(404, "application/json", `{"error":{"code":"ROUTE_NOT_FOUND","message":"m","details":{}}}`,
			without("X-RateLimit-Limit"), without("X-RateLimit-Remaining"), without("X-RateLimit-Reset")), nil},
		{"wrong method", "PUT", "/v1/product/domains", answer(405, envelope("METHOD_NOT_ALLOWED", obj{}), with("Allow", "GET, HEAD, POST")), nil},
		{"unknown route before authentication", "GET", "/v1/product/nope", answer(401, envelope("MISSING_API_KEY", obj{})), nil},

		{"unknown route answering 200", "GET", "/v1/product/nope", answer(200, obj{"domains": []obj{}}),
			[]string{"not an error"}},
		{"unknown route with a plain-text 404", "GET", "/v1/product/nope", raw(404, "text/plain; charset=utf-8", "404 page not found\n"),
			[]string{"Content-Type text/plain is not documented"}},
		{"unknown route with the wrong code", "GET", "/v1/product/nope", answer(404, envelope("NOT_FOUND", obj{})),
			[]string{"error code NOT_FOUND, want ROUTE_NOT_FOUND"}},
		{"unknown route without rate-limit headers", "GET", "/v1/product/nope", answer(404, envelope("ROUTE_NOT_FOUND", obj{}), without("X-RateLimit-Limit")),
			[]string{"X-RateLimit-Limit is missing"}},
		{"wrong method answered 404", "PATCH", domainPath, answer(404, envelope("ROUTE_NOT_FOUND", obj{})),
			[]string{"404 for a path documented for DELETE, GET", "want 405"}},
		{"405 without Allow", "PUT", "/v1/product/domains", answer(405, envelope("METHOD_NOT_ALLOWED", obj{})),
			[]string{"without an Allow header"}},
		{"Allow missing a method", "PUT", "/v1/product/domains", answer(405, envelope("METHOD_NOT_ALLOWED", obj{}), with("Allow", "GET")),
			[]string{"does not name the documented method POST"}},
		{"405 for an unknown path", "GET", "/v1/product/nope", answer(405, envelope("METHOD_NOT_ALLOWED", obj{}), with("Allow", "POST")),
			[]string{"405 for a path no route has"}},
		{"extra field in the envelope", "GET", "/v1/product/nope", answer(404, edited(envelope("ROUTE_NOT_FOUND", obj{}), func(e obj) { e["status"] = 404 })),
			[]string{"additional properties 'status' not allowed"}},
	}
	c := loadChecker(t) // safe for concurrent use; loading is the slow part
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := roundTrip(t, tc.method, tc.path, tc.handler).check(c)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantProblem(t, err, tc.want...)
		})
	}
}

func TestErrorNamesRequestRouteAndEveryProblem(t *testing.T) {
	t.Parallel()
	body := edited(domainDetail(), func(d obj) {
		d["extra"] = 1
		delete(d, "name")
	})
	err := roundTrip(t, "GET", domainPath, answer(200, body, without("X-Request-Id"))).check(loadChecker(t))
	if err == nil {
		t.Fatal("passed")
	}
	msg := err.Error()
	for _, want := range []string{
		"GET " + domainPath, "(route /v1/product/domains/{id})", "answered 200",
		"\n  - required header X-Request-Id is missing",
		"missing property 'name'", "additional properties 'extra' not allowed",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
}

func TestHeadAnswerMustHaveNoBody(t *testing.T) {
	t.Parallel()
	c := loadChecker(t)
	req, err := http.NewRequest("HEAD", "http://127.0.0.1:1/v1/product/domains", nil)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	productHeaders(h)
	h.Set("Content-Type", "application/json")
	wantProblem(t, c.CheckResponse(req, 200, h, []byte(`{"domains":[]}`)), "HEAD answer carries a body")
	if err := c.CheckResponse(req, 200, h, nil); err != nil {
		t.Fatal(err)
	}
}

// One Checker serves a whole end-to-end suite, whose tests run in parallel.
func TestCheckerIsSafeForConcurrentUse(t *testing.T) {
	t.Parallel()
	c := loadChecker(t)
	good := roundTrip(t, "GET", domainPath, answer(200, domainDetail()))
	bad := roundTrip(t, "GET", domainPath, answer(200, edited(domainDetail(), func(d obj) { d["x"] = 1 })))
	errs := make(chan error, 64)
	for i := range cap(errs) {
		go func() {
			if i%2 == 0 {
				errs <- good.check(c)
			} else if bad.check(c) == nil {
				errs <- errors.New("a bad response passed")
			} else {
				errs <- nil
			}
		}()
	}
	for range cap(errs) {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
