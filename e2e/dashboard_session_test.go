package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/testserver"
)

// The dashboard's sessions over HTTP against the real server (D73).

// sessionCookie returns the Set-Cookie line of the session cookie.
func sessionCookie(t *testing.T, r *testserver.Response) string {
	t.Helper()
	for _, c := range r.Header.Values("Set-Cookie") {
		if strings.HasPrefix(c, "carteiro_session=") {
			return c
		}
	}
	t.Fatalf("no carteiro_session cookie set: %v", r.Header.Values("Set-Cookie"))
	return ""
}

func TestDashboardSetupLinkAndSession(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		testserver.Must(t, strings.HasPrefix(ts.BootstrapSetupURL, ts.Config.PublicURL+"/dashboard/setup/"), "setup link %q", ts.BootstrapSetupURL)
		setup := "/v1/platform/setup/" + ts.SetupToken()
		br := ts.NewBrowser(t)

		r := br.Do(t, "GET", setup, nil, nil)
		testserver.Expect(t, r, 200, "")
		testserver.Must(t, r.JSON(t)["organizationName"] == "Default", "setup info: %s", r.Body)
		testserver.Expect(t, br.Do(t, "GET", "/v1/platform/setup/"+carteiro.RandomBase62(40), nil, nil), 404, "NOT_FOUND")

		owner := map[string]string{"email": "Owner@Example.com", "password": testserver.UserPassword}
		// Another site's page cannot post the form (login CSRF).
		r = br.Do(t, "POST", setup, owner, map[string]string{"Origin": "https://evil.example"})
		testserver.Expect(t, r, 403, "FORBIDDEN")
		// A refused password spends nothing.
		testserver.Expect(t, br.Do(t, "POST", setup, map[string]string{"email": "owner@example.com", "password": "short"}, nil), 422, "VALIDATION_ERROR")
		r = br.Do(t, "POST", setup, owner, nil)
		testserver.Expect(t, r, 201, "")
		cookie := sessionCookie(t, r)
		for _, attr := range []string{"HttpOnly", "SameSite=Strict", "Path=/"} {
			testserver.Must(t, strings.Contains(cookie, attr), "cookie lacks %s: %s", attr, cookie)
		}
		testserver.Must(t, !strings.Contains(cookie, "Secure"), "Secure cookie on an http public URL: %s", cookie)
		br.KeepCSRF(t, r)
		testserver.Must(t, strings.Contains(string(r.Body), `"email":"owner@example.com"`) && strings.Contains(string(r.Body), `"role":"owner"`), "setup answer: %s", r.Body)

		// The link works once.
		testserver.Expect(t, ts.NewBrowser(t).Do(t, "POST", setup, map[string]string{"email": "second@example.com", "password": testserver.UserPassword}, nil), 404, "NOT_FOUND")
		testserver.Expect(t, br.Do(t, "GET", setup, nil, nil), 404, "NOT_FOUND")

		r = br.Do(t, "GET", "/v1/platform/me", nil, nil)
		testserver.Expect(t, r, 200, "")
		me := r.JSON(t)["user"].(map[string]any)
		testserver.Must(t, me["organizationId"] == ts.OrgID && me["organizationName"] == "Default" && me["totpEnabled"] == false, "me: %s", r.Body)
		testserver.Expect(t, ts.NewBrowser(t).Do(t, "GET", "/v1/platform/me", nil, nil), 401, "UNAUTHORIZED")

		// CSRF: an unsafe method without the session's token is refused and changes nothing.
		domain := map[string]string{"name": "dash.example"}
		for _, h := range []map[string]string{{"X-CSRF-Token": ""}, {"X-CSRF-Token": carteiro.RandomBase62(40)}} {
			r = br.Do(t, "POST", "/v1/platform/domains", domain, h)
			testserver.Expect(t, r, 403, "FORBIDDEN")
			testserver.Must(t, r.Reason() == "csrf", "reason: %s", r.Body)
		}
		r = br.Do(t, "GET", "/v1/platform/domains", nil, nil)
		testserver.Must(t, r.Status == 200 && !strings.Contains(string(r.Body), "dash.example"), "domain created without CSRF token: %s", r.Body)
		testserver.Expect(t, br.Do(t, "POST", "/v1/platform/domains", domain, nil), 201, "")
		// The same objects as the product API sees, for the session's organization.
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains", Key: ts.LiveKey})
		testserver.Must(t, strings.Contains(string(r.Body), "dash.example"), "product API does not see the dashboard's domain: %s", r.Body)
		testserver.Expect(t, br.Do(t, "GET", "/v1/platform/domains", nil, map[string]string{"X-Carteiro-Mode": "staging"}), 422, "VALIDATION_ERROR")

		r = br.Do(t, "POST", "/v1/platform/logout", nil, nil)
		testserver.Expect(t, r, 204, "")
		testserver.Must(t, strings.Contains(sessionCookie(t, r), "Max-Age=0"), "logout keeps the cookie: %v", r.Header)
		testserver.Expect(t, br.Do(t, "GET", "/v1/platform/me", nil, nil), 401, "UNAUTHORIZED")
	})
}

func TestDashboardSessionExpiry(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		br := ts.NewUser(t, ts.OrgID, "idle@example.com", carteiro.RoleMember)
		me := func() int { return br.Do(t, "GET", "/v1/platform/me", nil, nil).Status }

		// 12 hours idle end a session; activity keeps it alive...
		ts.Clock.Advance(carteiro.SessionIdleTimeout - time.Minute)
		testserver.Must(t, me() == 200, "session ended before 12 h idle")
		ts.Clock.Advance(carteiro.SessionIdleTimeout)
		testserver.Must(t, me() == 401, "session alive after 12 h idle")

		// ...but not past 7 days.
		br.Login(t, "idle@example.com", testserver.UserPassword)
		for elapsed := time.Duration(0); elapsed+11*time.Hour < carteiro.SessionMaxAge; elapsed += 11 * time.Hour {
			ts.Clock.Advance(11 * time.Hour)
			testserver.Must(t, me() == 200, "active session ended after %v", elapsed+11*time.Hour)
		}
		ts.Clock.Advance(11 * time.Hour)
		testserver.Must(t, me() == 401, "session alive past 7 days")
	})
}

func appUser(orgID, email string) app.UserRequest {
	return app.UserRequest{OrgID: orgID, Email: email, Password: testserver.UserPassword, Role: carteiro.RoleMember}
}

func TestDashboardLoginLimits(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		for _, email := range []string{"a@example.com", "b@example.com"} {
			if _, err := ts.App.CreateUser(t.Context(), appUser(ts.OrgID, email)); err != nil {
				t.Fatal(err)
			}
		}
		login := func(br *testserver.Browser, email, password string) *testserver.Response {
			return br.Do(t, "POST", "/v1/platform/login", map[string]string{"email": email, "password": password}, nil)
		}
		first := ts.NewBrowser(t)
		for i := 0; i < 5; i++ {
			testserver.Expect(t, login(first, "a@example.com", "wrong password"), 401, "UNAUTHORIZED")
		}
		// The 6th try within a minute is refused, even with the right password.
		r := login(first, "a@example.com", testserver.UserPassword)
		testserver.Expect(t, r, 429, "RATE_LIMIT_EXCEEDED")
		testserver.Must(t, r.Header.Get("Retry-After") != "", "429 without Retry-After")
		// Per IP: another address from the same IP is refused too.
		testserver.Expect(t, login(first, "b@example.com", testserver.UserPassword), 429, "RATE_LIMIT_EXCEEDED")
		// Per address: from another IP, the address tried 5 times stays refused...
		other := ts.NewBrowserFrom(t, "127.0.0.2")
		testserver.Expect(t, login(other, "A@example.com", testserver.UserPassword), 429, "RATE_LIMIT_EXCEEDED")
		// ...and another address signs in.
		testserver.Expect(t, login(other, "b@example.com", testserver.UserPassword), 200, "")
	})
}

func TestDashboardTOTPAndPasswordChange(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		br := ts.NewUser(t, ts.OrgID, "careful@example.com", carteiro.RoleOwner)
		other := ts.NewBrowserFrom(t, "127.0.0.2")
		other.Login(t, "careful@example.com", testserver.UserPassword)

		// TOTP on: a code confirms the secret, then login asks for one.
		r := br.Do(t, "POST", "/v1/platform/me/totp", nil, nil)
		testserver.Expect(t, r, 200, "")
		secret := r.JSON(t)["secret"].(string)
		testserver.Must(t, strings.HasPrefix(r.JSON(t)["otpauthUrl"].(string), "otpauth://totp/"), "otpauth URL: %s", r.Body)
		testserver.Expect(t, br.Do(t, "POST", "/v1/platform/me/totp/confirm", map[string]string{"code": "000000"}, nil), 422, "VALIDATION_ERROR")
		testserver.Expect(t, br.Do(t, "POST", "/v1/platform/me/totp/confirm", map[string]string{"code": totp(t, secret, ts.Clock.Now())}, nil), 204, "")

		login := func(code string) *testserver.Response {
			body := map[string]string{"email": "careful@example.com", "password": testserver.UserPassword}
			if code != "" {
				body["totpCode"] = code
			}
			return ts.NewBrowserFrom(t, "127.0.0.3").Do(t, "POST", "/v1/platform/login", body, nil)
		}
		r = login("")
		testserver.Expect(t, r, 401, "UNAUTHORIZED")
		testserver.Must(t, r.Reason() == "totp_required", "reason: %s", r.Body)
		ts.Clock.Advance(30 * time.Second) // the confirming code's step is spent (D63)
		code := totp(t, secret, ts.Clock.Now())
		testserver.Expect(t, login(code), 200, "")
		testserver.Expect(t, login(code), 401, "UNAUTHORIZED") // single use

		// A password change ends the other sessions, not this one.
		testserver.Expect(t, br.Do(t, "POST", "/v1/platform/me/password",
			map[string]string{"currentPassword": "not it", "newPassword": "a new long password"}, nil), 403, "REAUTH_FAILED")
		testserver.Expect(t, br.Do(t, "POST", "/v1/platform/me/password",
			map[string]string{"currentPassword": testserver.UserPassword, "newPassword": "a new long password"}, nil), 204, "")
		testserver.Expect(t, br.Do(t, "GET", "/v1/platform/me", nil, nil), 200, "")
		testserver.Expect(t, other.Do(t, "GET", "/v1/platform/me", nil, nil), 401, "UNAUTHORIZED")
	})
}

// With an https public URL the session cookie is Secure.
func TestDashboardCookieIsSecureBehindHTTPS(t *testing.T) {
	t.Parallel()
	ts := testserver.StartServer(t, testserver.SQLite, map[string]string{"CARTEIRO_PUBLIC_URL": "https://mail.example.com"})
	testserver.Must(t, strings.HasPrefix(ts.BootstrapSetupURL, "https://mail.example.com/dashboard/setup/"), "setup link %q", ts.BootstrapSetupURL)
	r := ts.NewBrowser(t).Do(t, "POST", "/v1/platform/setup/"+ts.SetupToken(),
		map[string]string{"email": "owner@example.com", "password": testserver.UserPassword}, nil)
	testserver.Expect(t, r, 201, "")
	cookie := sessionCookie(t, r)
	testserver.Must(t, strings.Contains(cookie, "; Secure") && strings.Contains(cookie, "SameSite=Strict") && strings.Contains(cookie, "HttpOnly"), "cookie: %s", cookie)
}

// The setup link works for 24 hours (D73).
func TestDashboardSetupLinkExpires(t *testing.T) {
	t.Parallel()
	ts := testserver.StartServer(t, testserver.SQLite, nil)
	setup := "/v1/platform/setup/" + ts.SetupToken()
	br := ts.NewBrowser(t)
	testserver.Expect(t, br.Do(t, "GET", setup, nil, nil), 200, "")
	ts.Clock.Advance(carteiro.SetupTokenTTL)
	testserver.Expect(t, br.Do(t, "GET", setup, nil, nil), 404, "NOT_FOUND")
	testserver.Expect(t, br.Do(t, "POST", setup, map[string]string{"email": "late@example.com", "password": testserver.UserPassword}, nil), 404, "NOT_FOUND")
}
