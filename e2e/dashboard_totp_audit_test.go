package e2e

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/testserver"
)

// TOTP is turned off only with the password and a current code; then
// sign-in asks for no code, and the audit log says who turned it off
// (issue 26).
func TestDashboardTOTPDisable(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		br := ts.NewUser(t, ts.OrgID, "careful@example.com", carteiro.RoleOwner)
		disable := func(password, code string) *testserver.Response {
			return br.Do(t, "POST", "/v1/platform/me/totp/disable", map[string]string{"password": password, "totpCode": code}, nil)
		}
		testserver.Expect(t, disable(testserver.UserPassword, "000000"), 409, "INVALID_STATE") // not on

		r := br.Do(t, "POST", "/v1/platform/me/totp", nil, nil)
		testserver.Expect(t, r, 200, "")
		secret := r.JSON(t)["secret"].(string)
		testserver.Expect(t, br.Do(t, "POST", "/v1/platform/me/totp/confirm", map[string]string{"code": totp(t, secret, ts.Clock.Now())}, nil), 204, "")
		ts.Clock.Advance(30 * time.Second)
		code := totp(t, secret, ts.Clock.Now())

		testserver.Expect(t, disable(testserver.UserPassword, ""), 403, "REAUTH_REQUIRED")
		testserver.Expect(t, disable("not the password", code), 403, "REAUTH_FAILED")
		testserver.Expect(t, disable(testserver.UserPassword, "000000"), 403, "REAUTH_FAILED")
		testserver.Must(t, br.Do(t, "GET", "/v1/platform/me", nil, nil).JSON(t)["user"].(map[string]any)["totpEnabled"] == true, "TOTP off after refused tries")
		testserver.Expect(t, disable(testserver.UserPassword, code), 204, "")
		testserver.Must(t, br.Do(t, "GET", "/v1/platform/me", nil, nil).JSON(t)["user"].(map[string]any)["totpEnabled"] == false, "TOTP still on")

		// Sign-in takes the password alone again.
		testserver.Expect(t, ts.NewBrowserFrom(t, "127.0.0.3").Do(t, "POST", "/v1/platform/login",
			map[string]string{"email": "careful@example.com", "password": testserver.UserPassword}, nil), 200, "")
		r = br.Do(t, "GET", "/v1/platform/audit?limit=1", nil, nil)
		testserver.Must(t, r.Status == 200 && r.JSON(t)["data"].([]any)[0].(map[string]any)["action"] == carteiro.AuditTOTPDisabled, "audit: %s", r.Body)
	})
}

// The audit log in Settings comes a page at a time, by cursor: the pages
// together hold every entry once, newest first, including entries that
// share one instant (issue 26).
func TestDashboardAuditPages(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		owner := ts.NewUser(t, ts.OrgID, "owner@example.com", carteiro.RoleOwner)
		// The test clock stands still: these entries share one instant.
		for i := range 7 {
			r := owner.Do(t, "POST", "/v1/platform/api-keys", map[string]any{"name": fmt.Sprintf("key-%d", i), "mode": "live"}, nil)
			testserver.Expect(t, r, 201, "")
		}
		var seen []string
		cursor := ""
		for pages := 0; ; pages++ {
			testserver.Must(t, pages < 10, "the pages never end")
			path := "/v1/platform/audit?limit=3"
			if cursor != "" {
				path += "&before=" + url.QueryEscape(cursor)
			}
			r := owner.Do(t, "GET", path, nil, nil)
			testserver.Expect(t, r, 200, "")
			var page struct {
				Data []struct {
					Action, Target string
				} `json:"data"`
				NextCursor *string `json:"nextCursor"`
			}
			r.Decode(t, &page)
			testserver.Must(t, len(page.Data) <= 3, "page of %d entries", len(page.Data))
			for _, e := range page.Data {
				seen = append(seen, e.Action+" "+e.Target)
			}
			if page.NextCursor == nil {
				break
			}
			cursor = *page.NextCursor
		}
		// Whatever else the start wrote, each entry comes once, and the
		// seven keys newest first.
		var keys []string
		once := map[string]bool{}
		for _, s := range seen {
			testserver.Must(t, !once[s], "%s twice in the pages: %q", s, seen)
			once[s] = true
			if _, name, ok := strings.Cut(s, " key-"); ok && strings.HasPrefix(s, carteiro.AuditKeyCreated+" ") {
				keys = append(keys, name[:1])
			}
		}
		testserver.Must(t, strings.Join(keys, "") == "6543210", "keys in the pages: %q", seen)
		testserver.Expect(t, owner.Do(t, "GET", "/v1/platform/audit?before=nonsense", nil, nil), 422, "VALIDATION_ERROR")
	})
}
