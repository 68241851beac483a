package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// The dashboard's management flows that the first-day test does not walk
// (issue 26), as a person does them in a real Chromium, on both stores:
// deleting a domain asks for the password (a wrong one is refused);
// a webhook's secret is rotated (the next delivery is signed with the new
// one only), it is paused (nothing sent) and resumed (what waited is
// sent), and its log shows the receiver's status and body; suppressions
// are added, searched, reactivated and deleted; the email log's filters
// change the list a person sees. A server and a browser of their own keep
// this test independent of the first-day one.
func TestDashboardManageBrowser(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, be testserver.Backend) {
		rcv := newAnsweringReceiver(t)
		ts := testserver.StartServer(t, be, map[string]string{
			"CARTEIRO_WEBHOOK_ALLOW_PRIVATE": "true", "CARTEIRO_WEBHOOK_CA_FILE": rcv.CAFile(),
		})
		const owner, password = "owner@shop.example", "correct horse battery"
		_, err := ts.App.CreateUser(context.Background(), app.UserRequest{OrgID: ts.OrgID, Email: owner, Password: password, Role: carteiro.RoleOwner})
		testserver.Must(t, err == nil, "create user: %v", err)
		// A verified domain to send the sandbox emails from.
		shop := createDomain(t, ts, ts.LiveKey, "shop.example")
		publish(ts, shop)
		testserver.Must(t, verify(t, ts, ts.LiveKey, shop.ID).Status == "verified", "shop.example not verified")

		b := newBrowser(t, string(be))
		base := ts.URL + "/dashboard/"
		b.open(base + "login")
		b.fill("#login-form input[name=email]", owner)
		b.fill("#login-form input[name=password]", password)
		b.click("#login-form button[type=submit]")
		b.waitText("h1", "Overview")

		t.Run("domain delete asks for the password", func(t *testing.T) { manageDomainDelete(t, b, ts, base, password) })
		t.Run("webhook rotate, pause, delivery log", func(t *testing.T) { manageWebhook(t, b, ts, rcv, base) })
		t.Run("suppressions", func(t *testing.T) { manageSuppressions(t, b, base) })
		t.Run("email log filters", func(t *testing.T) { manageEmailFilters(t, b, ts, base) })
	})
}

// answeringReceiver is a TLS webhook receiver whose answer the test sets.
type answeringReceiver struct {
	*testutil.TLSReceiver
	status atomic.Int64
	body   atomic.Value // string
}

func newAnsweringReceiver(t *testing.T) *answeringReceiver {
	r := &answeringReceiver{}
	r.answer(http.StatusOK, "")
	r.TLSReceiver = testutil.NewTLSReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(int(r.status.Load()))
		_, _ = w.Write([]byte(r.body.Load().(string)))
	})
	return r
}

func (r *answeringReceiver) answer(status int, body string) {
	r.status.Store(int64(status))
	r.body.Store(body)
}

// deliveriesFor returns the requests that carried an event of type for
// the email id.
func (r *answeringReceiver) deliveriesFor(t *testing.T, eventType, id string) []testutil.ReceivedRequest {
	t.Helper()
	var out []testutil.ReceivedRequest
	for _, req := range r.Requests() {
		var p hookPayload
		if json.Unmarshal(req.Body, &p) != nil || p.Type != eventType {
			continue
		}
		if p.Data["emailId"] == id {
			out = append(out, req)
		}
	}
	return out
}

// withBrowser lets a subtest drive the test's browser, failing (and
// screenshotting) the subtest rather than its parent.
func withBrowser(t *testing.T, b *browser) *browser {
	parent := b.t
	b.t = t
	t.Cleanup(func() {
		if t.Failed() {
			b.screenshot("failure-" + strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()))
		}
		b.t = parent
	})
	return b
}

func manageDomainDelete(t *testing.T, parent *browser, ts *testserver.TestServer, base, password string) {
	b := withBrowser(t, parent)
	doomed := createDomain(t, ts, ts.LiveKey, "gone.example")
	b.open(base + "domains/" + doomed.ID)
	b.waitText("h1", "gone.example")
	b.click("#delete-domain")
	b.waitText("dialog", "Enter your password to confirm")
	b.checkA11y("domain delete dialog")
	b.fill("dialog input[name=password]", "not my password")
	b.click("dialog button[value=ok]")
	b.waitText("main .error", "")
	testserver.Must(t, strings.TrimSpace(b.text("main .error")) != "", "no refusal shown for a wrong password")
	testserver.Must(t, eval[string](b, "location.pathname") == "/dashboard/domains/"+doomed.ID, "left the domain's page after a wrong password")
	r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains/" + doomed.ID, Key: ts.LiveKey})
	testserver.Expect(t, r, http.StatusOK, "")

	b.click("#delete-domain")
	b.fill("dialog input[name=password]", password)
	b.click("dialog button[value=ok]")
	b.waitText("h1", "Domains")
	b.waitText("main", "shop.example")
	testserver.Must(t, !strings.Contains(b.text("main"), "gone.example"), "the deleted domain is still listed")
	r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains/" + doomed.ID, Key: ts.LiveKey})
	testserver.Expect(t, r, http.StatusNotFound, "")
}

func manageWebhook(t *testing.T, parent *browser, ts *testserver.TestServer, rcv *answeringReceiver, base string) {
	b := withBrowser(t, parent)
	const oldSecret = "the-first-secret-0123456789"
	b.open(base + "webhooks")
	b.fill("#webhook-form input[name=url]", rcv.URL()+"/hooks")
	b.fill("#webhook-form input[name=secret]", oldSecret)
	b.click("#webhook-form button[type=submit]")
	b.waitText("h1", rcv.URL())

	// The delivery log shows what the receiver answered, and the retry.
	rcv.answer(http.StatusServiceUnavailable, "busy, try later")
	b.click("#test-webhook")
	if _, err := rcv.WaitForRequests(1, 15*time.Second); err != nil {
		t.Fatalf("the test delivery did not arrive: %v", err)
	}
	b.waitText("#deliveries", "503")
	b.click("#deliveries details summary")
	b.waitText("#deliveries", "busy, try later")
	rcv.answer(http.StatusOK, "thanks from the receiver")

	// Rotation: the new secret is shown once; the next delivery is signed
	// with it and not with the old one.
	b.click("#rotate-secret")
	b.waitText("dialog", "The old one stops being valid")
	b.click("dialog button[value=ok]")
	secret := strings.TrimSpace(b.text("#webhook-out code.secret"))
	testserver.Must(t, strings.HasPrefix(secret, "whsec_"), "new secret shown: %q", secret)
	b.checkA11y("webhook with new secret")
	first := sendSandbox(t, ts, "rotated@customer.example", "After rotation")
	var signed []testutil.ReceivedRequest
	waitFor(t, func() bool { signed = rcv.deliveriesFor(t, "email.delivered", first); return len(signed) > 0 })
	testserver.Must(t, receiverVerify(signed[0], secret, time.Now()) == nil, "the delivery after rotation is not signed with the new secret")
	testserver.Must(t, receiverVerify(signed[0], oldSecret, time.Now()) != nil, "the old secret still verifies a delivery after rotation")
	b.open(base + "webhooks/" + webhookIDFromPath(t, b))
	b.waitText("h1", rcv.URL())
	if html := eval[string](b, "document.documentElement.outerHTML"); strings.Contains(html, secret) {
		t.Error("the rotated secret is on the page after a reload")
	}

	// Paused: the event waits, shown pending, and nothing reaches the
	// receiver; resumed: it is sent, and its 200 and body are in the log.
	b.click("#pause-webhook")
	b.waitText("main .row .badge", "paused")
	b.checkA11y("paused webhook")
	second := sendSandbox(t, ts, "paused@customer.example", "While paused")
	waitStatus(t, ts, ts.LiveKey, second, "delivered")
	waitFor(t, func() bool {
		return eval[bool](b, `[...document.querySelectorAll('#deliveries tbody tr')].some(tr => tr.innerText.includes('email.delivered') && tr.innerText.includes('pending'))`)
	})
	testserver.Must(t, len(rcv.deliveriesFor(t, "email.delivered", second)) == 0, "a paused webhook delivered")
	b.click("#pause-webhook")
	b.waitText("main .row .badge", "active")
	waitFor(t, func() bool { signed = rcv.deliveriesFor(t, "email.delivered", second); return len(signed) > 0 })
	testserver.Must(t, receiverVerify(signed[0], secret, time.Now()) == nil, "the delivery after resuming is not signed with the new secret")
	waitFor(t, func() bool {
		return eval[bool](b, `[...document.querySelectorAll('#deliveries tbody tr')].filter(tr => tr.innerText.includes('email.delivered') && tr.innerText.includes('200')).length == 2`)
	})
	b.do("open the bodies", chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('#deliveries details').forEach(d => d.open = true)`))
	b.waitText("#deliveries", "thanks from the receiver")
	b.checkA11y("webhook delivery log")
}

// webhookIDFromPath is the id of the webhook whose page is open.
func webhookIDFromPath(t *testing.T, b *browser) string {
	t.Helper()
	id := strings.TrimPrefix(eval[string](b, "location.pathname"), "/dashboard/webhooks/")
	testserver.Must(t, id != "" && !strings.Contains(id, "/"), "not on a webhook's page: %q", id)
	return id
}

func sendSandbox(t *testing.T, ts *testserver.TestServer, to, subject string) string {
	t.Helper()
	return send(t, ts, ts.LiveKey, map[string]any{"from": "hello@shop.example", "to": to,
		"subject": subject, "text": "t", "isSandbox": true}).ID
}

func manageSuppressions(t *testing.T, parent *browser, base string) {
	b := withBrowser(t, parent)
	b.open(base + "suppressions")
	b.waitText("h1", "Suppressions")
	for _, email := range []string{"bounced@customer.example", "quiet@customer.example"} {
		b.fill("#suppression-form input[name=email]", email)
		b.click("#suppression-form button[type=submit]")
		b.waitText("main", email)
	}
	b.checkA11y("suppressions")
	// Search: only the matching address stays.
	b.fill(`form[role=search] input[name=email]`, "bounced")
	b.click(`form[role=search] button[type=submit]`)
	b.waitLacks("main .table-wrap", "quiet@customer.example")
	b.waitText("main .table-wrap", "bounced@customer.example")
	// Reactivate: the address may receive mail again; it leaves the
	// active list and is found among the inactive ones.
	b.click(`button[aria-label="Reactivate bounced@customer.example"]`)
	b.waitText("main", "No suppressions")
	// A status choice that means "all" (an empty value) must show the
	// inactive one too: an "All" that listed only active ones hid it.
	if eval[bool](b, `[...document.querySelectorAll('form[role=search] select[name=status] option')].some(o => o.value === '')`) {
		b.choose(`form[role=search] select[name=status]`, "")
		b.click(`form[role=search] button[type=submit]`)
		b.waitText("main .table-wrap", "bounced@customer.example")
	}
	b.choose(`form[role=search] select[name=status]`, "inactive")
	b.click(`form[role=search] button[type=submit]`)
	b.waitText("main .table-wrap", "bounced@customer.example")
	b.waitText("main .table-wrap", "inactive")
	b.checkA11y("inactive suppressions")
	// Delete asks first; the suppression then leaves the list.
	b.open(base + "suppressions")
	b.waitText("main .table-wrap", "quiet@customer.example")
	b.click(`button[aria-label="Delete quiet@customer.example"]`)
	b.waitText("dialog", "Delete the suppression of quiet@customer.example?")
	b.click("dialog button[value=ok]")
	b.waitText("main", "No suppressions")
}

func manageEmailFilters(t *testing.T, parent *browser, ts *testserver.TestServer, base string) {
	b := withBrowser(t, parent)
	tagged := func(to, subject, kind string, extra map[string]any) string {
		body := map[string]any{"from": "hello@shop.example", "to": to, "subject": subject, "text": "t", "isSandbox": true,
			"tags": []map[string]string{{"name": "kind", "value": kind}}}
		for k, v := range extra {
			body[k] = v
		}
		return send(t, ts, ts.LiveKey, body).ID
	}
	invoice := tagged("ana@customer.example", "Invoice for March", "invoice", nil)
	welcome := tagged("bruno@customer.example", "Welcome aboard", "welcome", nil)
	tagged("carla@customer.example", "Newsletter later", "news",
		map[string]any{"scheduledAt": ts.Clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
	waitStatus(t, ts, ts.LiveKey, invoice, "delivered")
	waitStatus(t, ts, ts.LiveKey, welcome, "delivered")
	all := []string{"Invoice for March", "Welcome aboard", "Newsletter later"}
	created, err := time.Parse(time.RFC3339Nano, getEmail(t, ts, ts.LiveKey, invoice).CreatedAt)
	testserver.Must(t, err == nil, "createdAt: %v", err)
	day := created.Local() // the date inputs are in the browser's (this machine's) zone

	cases := []struct {
		name  string
		set   func()
		shown []string
	}{
		{"status", func() { b.choose(`form[role=search] select[name=status]`, "scheduled") }, []string{"Newsletter later"}},
		{"recipient", func() { b.fill(`form[role=search] input[name=recipient]`, "bruno@") }, []string{"Welcome aboard"}},
		{"subject", func() { b.fill(`form[role=search] input[name=subjectContains]`, "Invoice") }, []string{"Invoice for March"}},
		{"tag", func() { b.fill(`form[role=search] input[name=tag]`, "kind:welcome") }, []string{"Welcome aboard"}},
		{"from today", func() { b.fill(`form[role=search] input[name=from]`, day.Format(time.DateOnly)) }, all},
		{"from tomorrow", func() { b.fill(`form[role=search] input[name=from]`, day.AddDate(0, 0, 1).Format(time.DateOnly)) }, nil},
		{"to yesterday", func() { b.fill(`form[role=search] input[name=to]`, day.AddDate(0, 0, -1).Format(time.DateOnly)) }, nil},
	}
	for _, c := range cases {
		b.open(base + "emails")
		b.waitText("#email-log", "Invoice for March")
		c.set()
		b.click(`form[role=search] button[type=submit]`)
		if len(c.shown) == 0 {
			b.waitText("#email-log", "No emails match")
		}
		for _, s := range c.shown {
			b.waitText("#email-log", s)
		}
		for _, s := range all {
			if !contains(c.shown, s) {
				b.waitLacks("#email-log", s)
			}
		}
		if c.name == "status" {
			b.checkA11y("emails filtered")
		}
		// The filter survives a reload: it is in the address.
		testserver.Must(t, eval[string](b, "location.search") != "", "%s: the filter is not in the address", c.name)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// waitLacks waits until the text of sel no longer contains unwanted (the
// page re-renders after a filter or an action).
func (b *browser) waitLacks(sel, unwanted string) {
	b.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		last = eval[string](b, fmt.Sprintf("(document.querySelector(%q) || {}).innerText || ''", sel))
		if !strings.Contains(last, unwanted) {
			return
		}
		time.Sleep(150 * time.Millisecond)
	}
	b.t.Fatalf("%s still shows %q; last text %q (page errors: %v)", sel, unwanted, last, b.errors())
}
