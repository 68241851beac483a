package e2e

import (
	"strings"
	"testing"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/testserver"
)

// TestDashboardOrganizationsAreIsolated walks every dashboard route with a
// session of another organization, in both modes, as
// TestOrganizationsAreIsolated does with keys: the product routes under
// /v1/platform get the same cases, the dashboard's own routes theirs. A
// new session route without a case fails the test.
func TestDashboardOrganizationsAreIsolated(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, map[string]string{"CARTEIRO_SENDER_TOKEN_IN_RESPONSE": "true", "CARTEIRO_INBOUND_ADDR": "127.0.0.1:0"})
		otherOrg, _, _ := ts.NewOrg(t, "Other")
		fx := newIsolationFixture(t, ts)
		first := ts.NewUser(t, ts.OrgID, "first-owner@example.com", carteiro.RoleOwner)
		firstOwner := first.Do(t, "GET", "/v1/platform/me", nil, nil).JSON(t)["user"].(map[string]any)["id"].(string)
		r := first.Do(t, "POST", "/v1/platform/api-keys", map[string]any{"name": "first-key", "mode": "live"}, nil)
		testserver.Expect(t, r, 201, "")
		firstKey, firstSecret := r.JSON(t)["id"].(string), r.JSON(t)["secret"].(string)

		intruder := ts.NewUser(t, otherOrg, "intruder@example.com", carteiro.RoleOwner)
		do := func(method, path string, body any, mode string) *testserver.Response {
			intruder.Mode = mode
			return intruder.Do(t, method, "/v1/platform"+path, body, nil)
		}
		hides := func(r *testserver.Response, secrets ...string) {
			t.Helper()
			testserver.Expect(t, r, 200, "")
			for _, s := range secrets {
				testserver.Must(t, !strings.Contains(string(r.Body), s), "another organization's %s shows: %s", s, r.Body)
			}
		}
		own := map[string]func(){
			"GET /me": func() {
				r := do("GET", "/me", nil, "live")
				testserver.Must(t, r.Status == 200 && strings.Contains(string(r.Body), otherOrg) && !strings.Contains(string(r.Body), ts.OrgID), "me: %s", r.Body)
			},
			"PATCH /me": func() { testserver.Expect(t, do("PATCH", "/me", map[string]any{"language": "es"}, "live"), 200, "") },
			"POST /me/password": func() {
				testserver.Expect(t, do("POST", "/me/password", map[string]any{"currentPassword": "x", "newPassword": "long enough"}, "live"), 403, "REAUTH_FAILED")
			},
			"POST /me/totp": func() { testserver.Expect(t, do("POST", "/me/totp", nil, "live"), 200, "") },
			"POST /me/totp/confirm": func() {
				testserver.Expect(t, do("POST", "/me/totp/confirm", map[string]any{"code": "000000"}, "live"), 422, "VALIDATION_ERROR")
			},
			"POST /me/totp/disable": func() {
				testserver.Expect(t, do("POST", "/me/totp/disable", map[string]any{"password": "x", "totpCode": "000000"}, "live"), 409, "INVALID_STATE")
			},
			"GET /users": func() { hides(do("GET", "/users", nil, "live"), firstOwner, "first-owner@example.com") },
			"POST /users": func() {
				testserver.Expect(t, do("POST", "/users", map[string]any{"email": "second@other.example", "password": testserver.UserPassword, "role": "member"}, "live"), 201, "")
			},
			"PATCH /users/{id}": func() {
				testserver.Expect(t, do("PATCH", "/users/"+firstOwner, map[string]any{"role": "member"}, "live"), 404, "NOT_FOUND")
			},
			"DELETE /users/{id}": func() { testserver.Expect(t, do("DELETE", "/users/"+firstOwner, nil, "live"), 404, "NOT_FOUND") },
			"GET /api-keys":      func() { hides(do("GET", "/api-keys", nil, "live"), firstKey, "first-key") },
			"POST /api-keys": func() {
				testserver.Expect(t, do("POST", "/api-keys", map[string]any{"name": "k", "mode": "live", "domainId": fx.domain.ID}, "live"), 422, "VALIDATION_ERROR")
			},
			"DELETE /api-keys/{id}": func() { testserver.Expect(t, do("DELETE", "/api-keys/"+firstKey, nil, "live"), 404, "NOT_FOUND") },
			"GET /audit":            func() { hides(do("GET", "/audit", nil, "live"), firstKey, "first-owner@example.com") },
			"POST /logout":          func() {}, // below, once the walk is done
		}
		walked := 0
		for _, rt := range ts.HTTP.Routes() {
			if !rt.Session {
				continue
			}
			walked++
			suffix := strings.TrimPrefix(rt.Path, "/v1/platform")
			if check, ok := own[rt.Method+" "+suffix]; ok {
				check()
				continue
			}
			fx.check(t, rt, suffix, do)
		}
		testserver.Must(t, walked > 60, "only %d session routes walked", walked)
		testserver.Expect(t, do("POST", "/logout", nil, "live"), 204, "")
		testserver.Expect(t, do("GET", "/me", nil, "live"), 401, "UNAUTHORIZED")

		fx.untouched(t)
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains", Key: firstSecret}), 200, "")
		r = first.Do(t, "GET", "/v1/platform/users", nil, nil)
		testserver.Must(t, r.Status == 200 && strings.Contains(string(r.Body), `"role":"owner"`) && !strings.Contains(string(r.Body), "other.example"), "first organization's users: %s", r.Body)
	})
}
