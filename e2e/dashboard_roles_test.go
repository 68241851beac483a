package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/testserver"
)

// Owners and members (D73), API keys made in the dashboard and the audit
// log of who made and revoked them.
func TestDashboardRolesKeysAndAudit(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		owner := ts.NewUser(t, ts.OrgID, "owner@example.com", carteiro.RoleOwner)
		member := ts.NewUser(t, ts.OrgID, "member@example.com", carteiro.RoleMember)
		d := createDomain(t, ts, ts.LiveKey, "roles.example")

		// A member may not manage keys or users, nor delete domains: 403, nothing changes.
		refused := []struct {
			method, path string
			body         any
		}{
			{"GET", "/v1/platform/api-keys", nil},
			{"POST", "/v1/platform/api-keys", map[string]any{"name": "sneaky", "mode": "live"}},
			{"GET", "/v1/platform/users", nil},
			{"POST", "/v1/platform/users", map[string]any{"email": "friend@example.com", "password": testserver.UserPassword, "role": "owner"}},
			{"GET", "/v1/platform/audit", nil},
			{"DELETE", "/v1/platform/domains/" + d.ID, map[string]any{"password": testserver.UserPassword}},
		}
		for _, c := range refused {
			r := member.Do(t, c.method, c.path, c.body, nil)
			if r.Status != 403 || r.ErrorCode() != "FORBIDDEN" || r.Reason() != "role" {
				t.Errorf("member %s %s: %d %s, want 403 FORBIDDEN reason role", c.method, c.path, r.Status, r.Body)
			}
		}
		// Everything else a member may do.
		testserver.Expect(t, member.Do(t, "POST", "/v1/platform/domains", map[string]any{"name": "member.example"}, nil), 201, "")
		testserver.Expect(t, member.Do(t, "GET", "/v1/platform/domains/"+d.ID, nil, nil), 200, "")

		// An owner creates a key: the secret only in that answer, and it works.
		r := owner.Do(t, "POST", "/v1/platform/api-keys", map[string]any{"name": "ci", "mode": "test", "permission": "sending_access", "domainId": d.ID}, nil)
		testserver.Expect(t, r, 201, "")
		key := r.JSON(t)
		secret, _ := key["secret"].(string)
		testserver.Must(t, strings.HasPrefix(secret, "svc_test_") && key["domainId"] == d.ID && key["createdBy"] == "owner@example.com" &&
			key["lastUsedAt"] == nil, "created key: %s", r.Body)
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails", Key: secret}), 200, "")
		r = owner.Do(t, "GET", "/v1/platform/api-keys", nil, nil)
		testserver.Expect(t, r, 200, "")
		testserver.Must(t, strings.Contains(string(r.Body), key["id"].(string)) && !strings.Contains(string(r.Body), secret) &&
			!strings.Contains(string(r.Body), `"secret"`), "key list shows a secret or lacks the key: %s", r.Body)
		var keys struct {
			Data []struct {
				ID         string
				LastUsedAt *time.Time
			}
		}
		r.Decode(t, &keys)
		for _, k := range keys.Data {
			if k.ID == key["id"] {
				testserver.Must(t, k.LastUsedAt != nil && !k.LastUsedAt.Before(ts.Clock.Now().Add(-time.Minute)), "last use not recorded: %s", r.Body)
			}
		}
		testserver.Expect(t, owner.Do(t, "POST", "/v1/platform/api-keys", map[string]any{"name": "x", "mode": "staging"}, nil), 422, "VALIDATION_ERROR")
		testserver.Expect(t, owner.Do(t, "POST", "/v1/platform/api-keys", map[string]any{"name": "x", "mode": "live", "domainId": "nope"}, nil), 422, "VALIDATION_ERROR")

		testserver.Expect(t, member.Do(t, "DELETE", "/v1/platform/api-keys/"+key["id"].(string), nil, nil), 403, "FORBIDDEN")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails", Key: secret}), 200, "")
		testserver.Expect(t, owner.Do(t, "DELETE", "/v1/platform/api-keys/"+key["id"].(string), nil, nil), 204, "")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails", Key: secret}), 401, "INVALID_API_KEY")

		// Users: an owner adds one, changes a role; the last owner stays.
		r = owner.Do(t, "POST", "/v1/platform/users", map[string]any{"email": "new@example.com", "password": testserver.UserPassword, "role": "member"}, nil)
		testserver.Expect(t, r, 201, "")
		newID := r.JSON(t)["id"].(string)
		testserver.Expect(t, owner.Do(t, "POST", "/v1/platform/users", map[string]any{"email": "NEW@example.com", "password": testserver.UserPassword, "role": "member"}, nil), 409, "CONFLICT")
		r = owner.Do(t, "GET", "/v1/platform/users", nil, nil)
		testserver.Must(t, r.Status == 200 && strings.Count(string(r.Body), `"email"`) == 3 && !strings.Contains(string(r.Body), "argon2"), "users: %s", r.Body)
		ownerID := ""
		for _, u := range r.JSON(t)["data"].([]any) {
			if u.(map[string]any)["email"] == "owner@example.com" {
				ownerID = u.(map[string]any)["id"].(string)
			}
		}
		r = owner.Do(t, "PATCH", "/v1/platform/users/"+ownerID, map[string]any{"role": "member"}, nil)
		testserver.Expect(t, r, 409, "INVALID_STATE")
		testserver.Expect(t, owner.Do(t, "DELETE", "/v1/platform/users/"+ownerID, nil, nil), 409, "INVALID_STATE")
		testserver.Expect(t, owner.Do(t, "PATCH", "/v1/platform/users/"+newID, map[string]any{"role": "owner"}, nil), 200, "")
		testserver.Expect(t, owner.Do(t, "DELETE", "/v1/platform/users/"+newID, nil, nil), 204, "")

		// Deleting a domain asks for the owner's own password.
		testserver.Expect(t, owner.Do(t, "DELETE", "/v1/platform/domains/"+d.ID, nil, nil), 403, "REAUTH_REQUIRED")
		testserver.Expect(t, owner.Do(t, "DELETE", "/v1/platform/domains/"+d.ID, map[string]any{"password": "wrong password"}, nil), 403, "REAUTH_FAILED")
		testserver.Expect(t, owner.Do(t, "DELETE", "/v1/platform/domains/"+d.ID, map[string]any{"password": testserver.UserPassword}, nil), 200, "")

		// The audit log names who did what.
		r = owner.Do(t, "GET", "/v1/platform/audit", nil, nil)
		testserver.Expect(t, r, 200, "")
		var audit struct {
			Data []struct{ Actor, Action, Target string }
		}
		r.Decode(t, &audit)
		seen := map[string]bool{}
		for _, e := range audit.Data {
			seen[e.Actor+" "+e.Action+" "+strings.Fields(e.Target)[0]] = true
		}
		for _, want := range []string{
			"owner@example.com api_key.created " + key["id"].(string),
			"owner@example.com api_key.revoked " + key["id"].(string),
			"owner@example.com user.created new@example.com",
			"owner@example.com user.role_changed new@example.com",
			"owner@example.com user.deleted new@example.com",
			"cli user.created member@example.com",
		} {
			testserver.Must(t, seen[want], "audit log lacks %q: %s", want, r.Body)
		}
	})
}
