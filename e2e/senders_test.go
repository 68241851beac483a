package e2e

import (
	"bytes"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// TestSenderVerification uses the token from POST /senders' answer, which
// a live key gets only with CARTEIRO_SENDER_TOKEN_IN_RESPONSE (D59); the
// emailed link is TestSenderVerifiesByEmailedLinkD59.
func TestSenderVerification(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp, _ := relayServer(t, b, map[string]string{"CARTEIRO_SENDER_TOKEN_IN_RESPONSE": "true"})
		r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/senders", Key: ts.LiveKey,
			Body: map[string]string{"email": "Maria@Gmail.example", "displayName": "Maria"}})
		testserver.Expect(t, r, http.StatusCreated, "")
		created := r.JSON(t)
		id, token := created["id"].(string), created["verificationToken"].(string)
		testserver.Must(t, created["email"] == "maria@gmail.example" && created["verifiedAt"] == nil && created["active"] == true, "created %v", created)

		// The token is mailed from the system address (D36).
		msgs, err := smtp.WaitForMessages(1, 10*time.Second)
		testserver.Must(t, err == nil, "no verification email: %v", err)
		testserver.Must(t, msgs[0].From == "no-reply@carteiro.localhost" && msgs[0].To[0] == "maria@gmail.example", "envelope %s -> %v", msgs[0].From, msgs[0].To)
		testserver.Must(t, bytes.Contains(msgs[0].Data, []byte(token)), "the email does not carry the token")

		// Not yet verified: it cannot send.
		mail := map[string]any{"from": "Maria <maria@gmail.example>", "to": "x@customer.example", "subject": "s", "text": "t"}
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails", Key: ts.LiveKey, Body: mail}), 403, "DOMAIN_NOT_VERIFIED")

		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/senders", Key: ts.LiveKey,
			Body: map[string]string{"email": "maria@gmail.example"}}), http.StatusConflict, "CONFLICT")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/senders/verify", Key: ts.LiveKey,
			Body: map[string]string{"token": "0190aaaa-0000-4000-8000-000000000000"}}), http.StatusNotFound, "NOT_FOUND")
		r = ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/senders/verify", Key: ts.LiveKey, Body: map[string]string{"token": token}})
		testserver.Expect(t, r, http.StatusOK, "")
		testserver.Must(t, r.JSON(t)["id"] == id && r.JSON(t)["email"] == "maria@gmail.example", "verify answer %s", r.Body)
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/senders/verify", Key: ts.LiveKey,
			Body: map[string]string{"token": token}}), http.StatusGone, "TOKEN_EXPIRED")

		// Verified: it may be the from without a verified domain (D17).
		res := send(t, ts, ts.LiveKey, mail)
		waitStatus(t, ts, ts.LiveKey, res.ID, "delivered")
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/senders", Key: ts.LiveKey})
		list := r.JSON(t)["senders"].([]any)
		testserver.Must(t, len(list) == 1 && list[0].(map[string]any)["verifiedAt"] != nil, "list %s", r.Body)
		_, hasToken := list[0].(map[string]any)["verificationToken"]
		testserver.Must(t, !hasToken, "the list shows the token")

		// Deleted: it cannot send any more, and must verify again if re-added.
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "DELETE", Path: "/v1/product/senders/" + id, Key: ts.LiveKey}), http.StatusNoContent, "")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails", Key: ts.LiveKey, Body: mail}), 403, "DOMAIN_NOT_VERIFIED")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "DELETE", Path: "/v1/product/senders/" + id, Key: ts.LiveKey}), http.StatusNotFound, "NOT_FOUND")

		// A token expires after 24 hours.
		r = ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/senders", Key: ts.LiveKey, Body: map[string]string{"email": "late@gmail.example"}})
		testserver.Expect(t, r, http.StatusCreated, "")
		late := r.JSON(t)["verificationToken"].(string)
		ts.Clock.Advance(25 * time.Hour)
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/senders/verify", Key: ts.LiveKey,
			Body: map[string]string{"token": late}}), http.StatusGone, "TOKEN_EXPIRED")

		// Bad input.
		for _, body := range []any{map[string]string{}, map[string]string{"email": "nope"}, map[string]any{"email": "a@b.example", "displayName": string(make([]byte, 201))}} {
			testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/senders", Key: ts.LiveKey, Body: body}), 422, "VALIDATION_ERROR")
		}
	})
}

// confirmLink finds the confirmation link in a verification email and
// returns its path (/senders/confirm/<token>) and token (D59).
func confirmLink(t *testing.T, ts *testserver.TestServer, m testutil.ReceivedMessage) (path, token string) {
	t.Helper()
	re := regexp.MustCompile(regexp.QuoteMeta(ts.Config.PublicURL) + `(/senders/confirm/([0-9a-f-]{36}))`)
	match := re.FindSubmatch(m.Data)
	testserver.Must(t, match != nil, "no confirmation link in the email:\n%s", m.Data)
	return string(match[1]), string(match[2])
}

// pressConfirm is what the page's button does: a form POST to the link.
func pressConfirm(t *testing.T, ts *testserver.TestServer, path string) *testserver.Response {
	t.Helper()
	return ts.Do(t, testserver.Request{Method: "POST", Path: path, Body: "",
		Header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}})
}

// D59: with a live key the token reaches only the mailbox. A sender on a
// domain nobody registered verifies through the emailed link: GET shows a
// page with a button and verifies nothing (link scanners), POST verifies.
func TestSenderVerifiesByEmailedLinkD59(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp, _ := relayServer(t, b, nil)
		r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/senders", Key: ts.LiveKey, Body: map[string]string{"email": "maria@gmail.example"}})
		testserver.Expect(t, r, http.StatusCreated, "")
		created := r.JSON(t)
		tok, present := created["verificationToken"]
		testserver.Must(t, present && tok == nil, "a live key got the token: %s", r.Body)

		msgs, err := smtp.WaitForMessages(1, 10*time.Second)
		testserver.Must(t, err == nil, "no verification email: %v", err)
		path, token := confirmLink(t, ts, msgs[0])
		testserver.Must(t, bytes.Contains(msgs[0].Data, []byte("open this link")), "the email does not ask to open the link:\n%s", msgs[0].Data)
		testserver.Must(t, !bytes.Contains(msgs[0].Data, []byte("/v1/product/senders/verify")), "the email still asks for an API call")

		// GET: a page with a button, the address escaped, nothing verified.
		mail := map[string]any{"from": "maria@gmail.example", "to": "x@customer.example", "subject": "s", "text": "t"}
		for range 2 { // a link scanner may fetch it more than once
			page := ts.Do(t, testserver.Request{Method: "GET", Path: path})
			testserver.Expect(t, page, http.StatusOK, "")
			testserver.Must(t, strings.HasPrefix(page.Header.Get("Content-Type"), "text/html"), "content type %s", page.Header.Get("Content-Type"))
			csp := page.Header.Get("Content-Security-Policy")
			testserver.Must(t, strings.Contains(csp, "default-src 'none'") && strings.Contains(csp, "form-action 'self'") && !strings.Contains(csp, "script-src"), "CSP %q", csp)
			testserver.Must(t, page.Header.Get("Referrer-Policy") == "no-referrer", "Referrer-Policy %q", page.Header.Get("Referrer-Policy"))
			body := string(page.Body)
			testserver.Must(t, strings.Contains(body, `<form method="post">`) && strings.Contains(body, "<button") && strings.Contains(body, "maria@gmail.example"), "page:\n%s", body)
			testserver.Must(t, !strings.Contains(body, "<script"), "the page has a script")
		}
		list := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/senders", Key: ts.LiveKey}).JSON(t)["senders"].([]any)
		testserver.Must(t, list[0].(map[string]any)["verifiedAt"] == nil, "GET verified the sender")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails", Key: ts.LiveKey, Body: mail}), 403, "DOMAIN_NOT_VERIFIED")

		// POST (the button): verified, and it sends.
		done := pressConfirm(t, ts, path)
		testserver.Expect(t, done, http.StatusOK, "")
		testserver.Must(t, strings.Contains(string(done.Body), "maria@gmail.example") && !strings.Contains(string(done.Body), "<form"), "done page:\n%s", done.Body)
		res := send(t, ts, ts.LiveKey, mail)
		waitStatus(t, ts, ts.LiveKey, res.ID, "delivered")

		// The link works once; a made-up one finds nothing.
		testserver.Expect(t, pressConfirm(t, ts, path), http.StatusGone, "TOKEN_EXPIRED")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: path}), http.StatusGone, "TOKEN_EXPIRED")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/senders/verify", Key: ts.LiveKey,
			Body: map[string]string{"token": token}}), http.StatusGone, "TOKEN_EXPIRED")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/senders/confirm/0190aaaa-0000-4000-8000-000000000000"}), http.StatusNotFound, "NOT_FOUND")
		testserver.Expect(t, pressConfirm(t, ts, "/senders/confirm/%3Cb%3Ex"), http.StatusNotFound, "NOT_FOUND")

		// A test key still gets the token in the answer.
		r = ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/senders", Key: ts.TestKey, Body: map[string]string{"email": "joao@gmail.example"}})
		testserver.Expect(t, r, http.StatusCreated, "")
		_, isString := r.JSON(t)["verificationToken"].(string)
		testserver.Must(t, isString, "a test key got no token: %s", r.Body)
	})
}

// forbiddenDetails returns error.details of a 403 FORBIDDEN.
func forbiddenDetails(t *testing.T, r *testserver.Response) map[string]any {
	t.Helper()
	testserver.Expect(t, r, http.StatusForbidden, "FORBIDDEN")
	details, _ := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)
	return details
}

// D59: an organization cannot register a sender on a domain another one
// registered (any status but deleted), so it cannot send as that domain;
// and a verified sender stops sending once another organization registers
// its domain.
func TestSenderOnAnotherOrganizationsDomainD59(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, _, _ := relayServer(t, b, nil) // the first organization has verified shop.example
		createDomain(t, ts, ts.LiveKey, "pending.example")
		gone := createDomain(t, ts, ts.LiveKey, "gone.example")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "DELETE", Path: "/v1/product/domains/" + gone.ID, Key: ts.LiveKey}), 200, "")
		_, bLive, bTest := ts.NewOrg(t, "Intruder")
		register := func(key, email string) *testserver.Response {
			return ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/senders", Key: key, Body: map[string]string{"email": email}})
		}

		for _, email := range []string{"ceo@shop.example", "CEO@Shop.Example", "ceo@mail.shop.example", "ceo@pending.example"} {
			for _, key := range []string{bLive, bTest} {
				details := forbiddenDetails(t, register(key, email))
				testserver.Must(t, len(details) == 2 && details["field"] == "email" && details["reason"] == "domain_of_another_organization",
					"%s: details %v", email, details)
			}
		}
		list := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/senders", Key: bLive}).JSON(t)["senders"].([]any)
		testserver.Must(t, len(list) == 0, "refused senders were stored: %v", list)
		// The organization that registered the domain may still add senders on it.
		testserver.Expect(t, register(ts.LiveKey, "ceo@pending.example"), http.StatusCreated, "")
		// A deleted domain is free again.
		testserver.Expect(t, register(bTest, "ceo@gone.example"), http.StatusCreated, "")

		// A sender verified on a free domain stops when another organization registers it.
		r := register(bTest, "boss@later.example")
		testserver.Expect(t, r, http.StatusCreated, "")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/senders/verify", Key: bTest,
			Body: map[string]string{"token": r.JSON(t)["verificationToken"].(string)}}), http.StatusOK, "")
		mail := map[string]any{"from": "boss@later.example", "to": "x@customer.example", "subject": "s", "text": "t"}
		res := send(t, ts, bLive, mail)
		waitStatus(t, ts, bLive, res.ID, "delivered")
		createDomain(t, ts, ts.LiveKey, "later.example")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails", Key: bLive, Body: mail}), http.StatusForbidden, "DOMAIN_NOT_VERIFIED")
		batch := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/batch", Key: bLive, Body: []any{mail}})
		testserver.Must(t, strings.Contains(string(batch.Body), "DOMAIN_NOT_VERIFIED"), "batch %d %s", batch.Status, batch.Body)
	})
}
