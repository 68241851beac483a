package e2e

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

func TestSenderVerification(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp, _ := relayServer(t, b, nil)
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
