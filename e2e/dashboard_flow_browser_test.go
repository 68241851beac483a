package e2e

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// hitCounter is a loopback HTTP server that counts the requests of each
// path: the email viewer's checks (a script that must not run, a remote
// image that must load only when asked) report to it.
type hitCounter struct {
	srv     *httptest.Server
	scripts atomic.Int64
	images  atomic.Int64
}

func newHitCounter(t *testing.T) *hitCounter {
	h := &hitCounter{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/script":
			h.scripts.Add(1)
		case "/pixel.gif":
			h.images.Add(1)
			w.Header().Set("Content-Type", "image/gif")
			_, _ = w.Write([]byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"))
		}
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// The dashboard's whole first day (issue 26), as a person does it in a
// real Chromium, on both stores: the first-start setup link, a key shown
// once, a domain added and verified, a sandbox email in the log and its
// page (where the email's script does not run), a webhook and its test
// delivery, a CSV audience, a broadcast's progress, logout. Every page
// passes axe-core. Not parallel with other tests: its two Chromiums and
// -race servers keep both cores busy, which would stretch the other tests'
// waits and its own (chromedp's) for pages.
func TestDashboardFirstDayBrowser(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, be testserver.Backend) {
		smtp := testutil.NewSMTPServer(t)
		rcv := testutil.NewTLSReceiver(t, nil)
		hits := newHitCounter(t)
		ts := testserver.StartServer(t, be, map[string]string{
			"CARTEIRO_DELIVERY": "relay", "CARTEIRO_RELAY_URL": "smtp+plain://" + smtp.Addr(),
			"CARTEIRO_RELAY_ACCEPT_IS_DELIVERY": "true", "CARTEIRO_SMTP_TIMEOUT": "2s",
			"CARTEIRO_WEBHOOK_ALLOW_PRIVATE": "true", "CARTEIRO_WEBHOOK_CA_FILE": rcv.CAFile(),
		})
		b := newBrowser(t, string(be))
		base := ts.URL + "/dashboard/"

		// First start: the link serve prints (D73) makes the first owner.
		testserver.Must(t, strings.Contains(ts.BootstrapSetupURL, "/dashboard/setup/"), "first start's link %q", ts.BootstrapSetupURL)
		token := ts.SetupToken()
		b.open(base + "setup/" + token)
		b.waitText("h1", "Welcome to Carteiro")
		b.checkA11y("setup")
		b.docShot("setup")
		b.fill("#setup-form input[name=email]", "owner@shop.example")
		b.fill("#setup-form input[name=password]", "correct horse battery")
		b.fill("#setup-form input[name=password2]", "correct horse battery")
		b.click("#setup-form button[type=submit]")
		b.waitText("h1", "Overview")
		b.waitText("header .who", "owner@shop.example")
		b.checkA11y("overview")

		// The link works once.
		b.open(base + "setup/" + token)
		b.waitText("main", "invalid, already used or expired")
		b.open(base)
		b.waitText("h1", "Overview")

		// API keys: the secret is shown once, with a copy button.
		b.click(`nav a[href="/dashboard/api-keys"]`)
		b.waitText("h1", "API keys")
		b.fill("#key-form input[name=name]", "backend")
		b.click("#key-form button[type=submit]")
		secret := strings.TrimSpace(b.text("#secret-value"))
		testserver.Must(t, strings.HasPrefix(secret, "svc_live_"), "secret shown: %q", secret)
		b.waitText("#new-secret", "shown only this once")
		b.waitText("#key-list", "backend")
		b.checkA11y("api keys")
		b.docShot("api-keys")
		// Revoking asks first; the key then stops working.
		b.fill("#key-form input[name=name]", "temporary")
		b.click("#key-form button[type=submit]")
		b.waitText("#new-secret", "Key temporary created")
		doomed := strings.TrimSpace(b.text("#secret-value"))
		testserver.Must(t, doomed != secret && strings.HasPrefix(doomed, "svc_live_"), "second secret %q", doomed)
		b.waitText("#key-list", "temporary")
		b.click(`#key-list button[aria-label="Revoke temporary"]`)
		b.waitText("dialog", "Revoke the key temporary?")
		b.click(`dialog button[value=ok]`)
		b.waitText("#key-list", "revoked")
		r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains", Key: doomed})
		testserver.Expect(t, r, http.StatusUnauthorized, "")
		b.open(base + "api-keys")
		b.waitText("#key-list", "backend")
		if html := eval[string](b, "document.documentElement.outerHTML"); strings.Contains(html, secret) {
			t.Error("the key's secret is on the page after a reload")
		}
		// The key works on the product API.
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains", Key: secret})
		testserver.Expect(t, r, http.StatusOK, "")

		// Domains: add, publish (as the customer would at their DNS host),
		// verify now.
		b.click(`nav a[href="/dashboard/domains"]`)
		b.fill("#domain-form input[name=name]", "shop.example")
		b.click("#domain-form button[type=submit]")
		b.waitText("h1", "shop.example")
		b.waitText("main", "DNS records")
		var d createdDomain
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains", Key: secret})
		var list struct {
			Domains []struct{ ID, Name string } `json:"domains"`
		}
		r.Decode(t, &list)
		testserver.Must(t, len(list.Domains) == 1, "domains %s", r.Body)
		d.ID = list.Domains[0].ID
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains/" + d.ID, Key: secret})
		var detail struct {
			Records []struct{ Type, Host, Value string } `json:"dnsRecordsToPublish"`
		}
		r.Decode(t, &detail)
		shown := b.text("main table")
		for _, rec := range detail.Records {
			testserver.Must(t, strings.Contains(shown, rec.Host), "record %s not shown", rec.Host)
			switch rec.Type {
			case "TXT":
				ts.DNS.SetTXT(rec.Host, rec.Value)
			case "CNAME":
				ts.DNS.SetCNAME(rec.Host, rec.Value)
			}
		}
		b.checkA11y("domain")
		b.click("#verify")
		b.waitText("#verify-result", "Result: verified")
		b.waitText("main .row .badge", "verified")
		b.docShot("domain")

		// A sandbox email, as a program sends it, is in the log; its page
		// has the timeline; its script does not run, its remote image loads
		// only when asked.
		evil := fmt.Sprintf(`<p>Hello from the sandbox</p><script>fetch(%[1]q)</script>`+
			`<img src="x" onerror="fetch(%[1]q)"><img src=%[2]q alt="">`, hits.srv.URL+"/script", hits.srv.URL+"/pixel.gif")
		res := send(t, ts, secret, map[string]any{"from": "hello@shop.example", "to": "anyone@sandbox.example",
			"subject": "Dashboard sandbox", "html": evil, "text": "Hello in text", "isSandbox": true})
		waitStatus(t, ts, secret, res.ID, "delivered")
		b.click(`nav a[href="/dashboard/emails"]`)
		b.waitText("#email-log", "Dashboard sandbox")
		b.waitText("#email-log", "delivered")
		b.checkA11y("emails")
		b.docShot("emails")
		// The open log shows a new email without a reload (it polls).
		send(t, ts, secret, map[string]any{"from": "hello@shop.example", "to": "anyone@sandbox.example",
			"subject": "Arrives while watching", "text": "t", "isSandbox": true})
		b.waitText("#email-log", "Arrives while watching")
		// The test mode shows test data only: nothing was sent with a test key.
		b.choose("#mode-switch", "test")
		b.waitText("#email-log", "No emails match")
		testserver.Must(t, eval[bool](b, `document.querySelector('header.top').classList.contains('test-mode')`), "no test-mode header")
		b.choose("#mode-switch", "live")
		b.waitText("#email-log", "Dashboard sandbox")
		b.click(`#email-log a[href="/dashboard/emails/` + res.ID + `"]`)
		b.waitText("h1", "Dashboard sandbox")
		b.waitText("#timeline", "queued")
		b.waitText("#timeline", "delivered")
		b.waitText(".text-body", "Hello in text")
		time.Sleep(time.Second) // the frame's load, and its script if it could run
		testserver.Must(t, hits.scripts.Load() == 0, "the email's script ran in the viewer")
		testserver.Must(t, hits.images.Load() == 0, "a remote image loaded before it was asked for")
		sandbox := eval[*string](b, `document.getElementById('email-frame').getAttribute('sandbox')`)
		testserver.Must(t, sandbox != nil && *sandbox == "", "iframe sandbox attribute %v, want present and empty", sandbox)
		b.errors() // the frame's own CSP refusals (its blocked image) are the point, not page errors
		b.checkA11y("email")
		b.docShot("email")
		b.click("#load-images")
		waitFor(t, func() bool { return hits.images.Load() > 0 })
		time.Sleep(500 * time.Millisecond)
		testserver.Must(t, hits.scripts.Load() == 0, "the email's script ran once images were on")

		// Webhooks: create, test, see the delivery succeed.
		b.click(`nav a[href="/dashboard/webhooks"]`)
		b.fill("#webhook-form input[name=url]", rcv.URL()+"/hooks")
		b.click("#webhook-form button[type=submit]")
		b.waitText("h1", rcv.URL())
		b.click("#test-webhook")
		if _, err := rcv.WaitForRequests(1, 15*time.Second); err != nil {
			t.Fatalf("the test delivery did not arrive: %v", err)
		}
		b.waitText("#deliveries", "success")
		b.waitText("#deliveries", "200")
		b.checkA11y("webhook")
		b.docShot("webhook")

		// An email's page: a scheduled email is cancelled, then resent; the
		// page shows its headers and attachment, and the new email's page
		// the webhook deliveries of its own events.
		later := send(t, ts, secret, map[string]any{"from": "hello@shop.example", "to": "anyone@sandbox.example",
			"subject": "Scheduled one", "text": "Later", "isSandbox": true,
			"scheduledAt": ts.Clock.Now().Add(time.Minute).UTC().Format(time.RFC3339), "headers": map[string]string{"X-Campaign": "spring"},
			"attachments": []map[string]any{{"filename": "invoice.pdf", "contentType": "application/pdf", "disposition": "attachment",
				"content": base64.StdEncoding.EncodeToString([]byte("%PDF-1.4 fourteen"))}}})
		b.open(base + "emails/" + later.ID)
		b.waitText("h1", "Scheduled one")
		b.waitText("main dl", "X-Campaign")
		b.waitText("main table", "invoice.pdf")
		b.click("main .actions button.danger")
		b.waitText("dialog", "Cancel this scheduled email?")
		b.click(`dialog button[value=ok]`)
		b.waitText("main .row .badge", "cancelled")
		ts.Clock.Advance(2 * time.Minute) // past its time: the copy is sent at once
		b.click("main .actions button")   // Resend
		resent := later.ID
		waitFor(t, func() bool { // the page of the copy opens
			resent = strings.TrimPrefix(eval[string](b, "location.pathname"), "/dashboard/emails/")
			return resent != later.ID
		})
		waitStatus(t, ts, secret, resent, "delivered")
		waitFor(t, func() bool { // the webhook's event, answered 200
			b.open(base + "emails/" + resent)
			b.waitText("h1", "Scheduled one")
			shown := b.text("#email-deliveries")
			return strings.Contains(shown, "email.delivered") && strings.Contains(shown, "success")
		})
		b.waitText("#email-deliveries", rcv.URL())
		b.checkA11y("email with deliveries")

		// Audiences: a CSV import with a bad row and a duplicate.
		b.click(`nav a[href="/dashboard/audiences"]`)
		b.fill("#audience-form input[name=name]", "Customers")
		b.click("#audience-form button[type=submit]")
		b.waitText("h1", "Customers")
		csv := filepath.Join(t.TempDir(), "contacts.csv")
		content := "email,firstName,plan\r\nana@customer.example,Ana,pro\r\nbia@customer.example,\"Bia, B.\",free\r\n,NoEmail,x\r\n" +
			"carla@customer.example,Carla,pro\r\nana@customer.example,Ana again,pro\r\n"
		if err := os.WriteFile(csv, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		b.setFile("#import-form input[type=file]", csv)
		b.click("#import-form button[type=submit]")
		b.waitText("#import-summary", "3 added")
		b.waitText("#import-report", "no email")
		b.waitText("#contact-total", "3 contacts")
		if v := eval[float64](b, `document.getElementById('import-progress').value / document.getElementById('import-progress').max`); v != 1 {
			t.Errorf("progress bar at %v, want full", v)
		}
		report := b.text("#import-report table")
		testserver.Must(t, strings.Contains(report, "4\t—\tno email") && strings.Contains(report, "6\tana@customer.example\tthe same email as an earlier line"),
			"row errors without their lines: %q", report)
		b.checkA11y("audience")
		b.docShot("audience")

		// Broadcasts: compose, send, watch the progress to the end.
		b.click(`nav a[href="/dashboard/broadcasts"]`)
		b.fill("#broadcast-form input[name=fromEmail]", "news@shop.example")
		b.fill("#broadcast-form input[name=subject]", "Hello customers")
		b.click("#preview-broadcast")
		b.checkA11y("broadcasts")
		b.docShot("broadcasts")
		b.click("#broadcast-form button[type=submit]")
		b.waitText("h1", "Hello customers")
		b.waitText("#broadcast-progress", "3 of 3 queued")
		b.waitText("#broadcast-status", "sent")
		b.checkA11y("broadcast")
		if _, err := smtp.WaitForMessages(3, 20*time.Second); err != nil {
			t.Fatalf("the broadcast's emails did not reach the relay: %v", err)
		}

		// Templates: the editor test-renders with the sanitize report.
		b.click(`nav a[href="/dashboard/templates"]`)
		b.fill("#template-form input[name=name]", "Welcome")
		b.click("#template-form button[type=submit]")
		b.waitText("h1", "Welcome")
		b.fill("#template-editor textarea[name=html]", "<p>Hi {{name}}</p><script>alert(1)</script>")
		b.click("#test-render")
		b.waitText("#test-render-report", "removed 1 scripts")
		b.checkA11y("template")
		b.docShot("template")

		// The other sections open and pass axe.
		for _, s := range []struct{ path, title string }{
			{"senders", "Senders"}, {"suppressions", "Suppressions"}, {"settings", "Settings"}, {"", "Overview"},
		} {
			b.click(`nav a[href="/dashboard/` + s.path + `"]`)
			b.waitText("h1", s.title)
			b.checkA11y(s.title)
			b.docShot(strings.ToLower(s.title))
		}

		// A language chosen in the header stays with the user.
		b.choose("#lang-switch", "es")
		b.waitText("h1", "Resumen")
		b.waitText("nav", "Configuración")
		b.do("clear the browser's choice", chromedp.Evaluate[chromedp.Void](`localStorage.removeItem('carteiro.lang')`))
		b.open(base)
		b.waitText("h1", "Resumen")
		b.choose("#lang-switch", "en")
		b.waitText("h1", "Overview")

		// On a phone the navigation folds behind the menu button and the
		// tables stack.
		b.do("phone viewport", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch))
		navShown := `getComputedStyle(document.getElementById('nav')).display`
		testserver.Must(t, eval[string](b, navShown) == "none", "navigation shown on a phone")
		b.click(".menu-toggle")
		testserver.Must(t, eval[string](b, navShown) == "block", "the menu did not open")
		b.click(`nav a[href="/dashboard/emails"]`)
		b.waitText("h1", "Emails")
		testserver.Must(t, eval[string](b, navShown) == "none", "the menu stayed open after a choice")
		b.waitText("#email-log", "Dashboard sandbox")
		testserver.Must(t, eval[string](b, `getComputedStyle(document.querySelector('#email-log td')).display`) == "block", "table not stacked")
		b.checkA11y("phone")
		b.docShot("phone")
		b.do("laptop viewport", chromedp.EmulateViewport(1280, 900))

		// The owner adds a member in Settings.
		b.click(`nav a[href="/dashboard/settings"]`)
		b.fill("#user-form input[name=email]", "member@shop.example")
		b.fill("#user-form input[name=password]", "member password 1")
		b.click("#user-form button[type=submit]")
		b.waitText("#users", "member@shop.example")

		// Two-factor authentication: on with a code, off with the password
		// and a later code.
		b.click("#totp-enable")
		totpSecret := strings.TrimSpace(b.text("#totp-secret"))
		b.fill("#totp-confirm-form input[name=code]", totp(t, totpSecret, ts.Clock.Now()))
		b.click("#totp-confirm-form button[type=submit]")
		b.waitText("main", "An authenticator code is asked at sign-in.")
		b.open(base + "settings")
		ts.Clock.Advance(30 * time.Second) // the confirming code's step is spent (D63)
		b.fill("#totp-disable-form input[name=password]", "correct horse battery")
		b.fill("#totp-disable-form input[name=totpCode]", totp(t, totpSecret, ts.Clock.Now()))
		b.checkA11y("settings with TOTP")
		b.click("#totp-disable-form button[type=submit]")
		b.waitText("main", "Two-factor authentication is off.")
		b.waitText("#audit", "Two-factor authentication turned on")

		// Logout ends the session: the dashboard asks to sign in again.
		b.click("#logout")
		b.waitText("h1", "Sign in")
		b.open(base + "emails")
		b.waitText("h1", "Sign in")

		// A member signs in, lands where they were going, and has no API
		// keys section; its route says why.
		b.fill("#login-form input[name=email]", "member@shop.example")
		b.fill("#login-form input[name=password]", "member password 1")
		b.click("#login-form button[type=submit]")
		b.waitText("h1", "Emails")
		testserver.Must(t, !strings.Contains(b.text("nav"), "API keys"), "a member sees the API keys section")
		b.open(base + "api-keys")
		b.waitText("main .error", "")
		testserver.Must(t, b.text("main .error") != "", "no refusal shown to a member on the keys page")
		b.click("#logout")
		b.waitText("h1", "Sign in")
	})
}
