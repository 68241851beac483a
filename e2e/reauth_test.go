package e2e

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

// totp computes an RFC 6238 code independently of the server's code.
func totp(t *testing.T, secretB32 string, at time.Time) string {
	t.Helper()
	secret, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(secretB32)
	if err != nil {
		t.Fatalf("decode TOTP secret: %v", err)
	}
	var msg [8]byte
	binary.BigEndian.PutUint64(msg[:], uint64(at.Unix()/30))
	mac := hmac.New(sha1.New, secret)
	mac.Write(msg[:])
	sum := mac.Sum(nil)
	off := sum[len(sum)-1] & 0x0f
	return fmt.Sprintf("%06d", (binary.BigEndian.Uint32(sum[off:])&0x7fffffff)%1_000_000)
}

func TestDeleteDomainReauthentication(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		ctx := t.Context()
		del := func(id string, body any) *testserver.Response {
			return ts.Do(t, testserver.Request{Method: "DELETE", Path: "/v1/product/domains/" + id, Key: ts.LiveKey, Body: body})
		}

		// D8: a password set → the credential is required and checked.
		testserver.Must(t, ts.App.SetPassword(ctx, ts.OrgID, "correct horse battery") == nil, "set password")
		d := createDomain(t, ts, ts.LiveKey, "guarded.example")
		testserver.Expect(t, del(d.ID, nil), http.StatusForbidden, "REAUTH_REQUIRED")
		testserver.Expect(t, del(d.ID, map[string]string{"method": "password"}), http.StatusForbidden, "REAUTH_REQUIRED")
		testserver.Expect(t, del(d.ID, map[string]string{"method": "password", "credential": "wrong"}), http.StatusForbidden, "REAUTH_FAILED")
		testserver.Expect(t, del(d.ID, map[string]string{"method": "totp", "credential": "123456"}), http.StatusForbidden, "REAUTH_FAILED")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains/" + d.ID, Key: ts.LiveKey}), 200, "")
		testserver.Expect(t, del(d.ID, map[string]string{"method": "password", "credential": "correct horse battery"}), 200, "")

		// TOTP enabled as well: a current code works, a stale one does not.
		ts.Clock.Advance(61 * time.Second) // past the 5-per-minute deletion limit (D13)
		secret, url, err := ts.App.EnableTOTP(ctx, ts.OrgID)
		testserver.Must(t, err == nil && url != "", "enable TOTP: %v", err)
		d = createDomain(t, ts, ts.LiveKey, "guarded.example")
		stale := totp(t, secret, ts.Clock.Now().Add(-5*time.Minute))
		testserver.Expect(t, del(d.ID, map[string]string{"method": "totp", "credential": stale}), http.StatusForbidden, "REAUTH_FAILED")
		testserver.Expect(t, del(d.ID, map[string]string{"method": "totp", "credential": totp(t, secret, ts.Clock.Now())}), 200, "")

		// Without reauthentication configured, another organization deletes freely.
		_, other, _ := ts.NewOrg(t, "Open")
		od := createDomain(t, ts, other, "open.example")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "DELETE", Path: "/v1/product/domains/" + od.ID, Key: other}), 200, "")
	})
}

// D63: a TOTP code is single-use. The code that deleted one domain cannot
// delete another within its 90-second window, on this node or another one
// sharing the database; the next time step's code works.
func TestTOTPCodeReplayRefusedD63(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		secret, _, err := ts.App.EnableTOTP(t.Context(), ts.OrgID)
		testserver.Must(t, err == nil, "enable TOTP: %v", err)
		del := func(ts *testserver.TestServer, id, code string) *testserver.Response {
			return ts.Do(t, testserver.Request{Method: "DELETE", Path: "/v1/product/domains/" + id, Key: ts.LiveKey,
				Body: map[string]string{"method": "totp", "credential": code}})
		}
		first := createDomain(t, ts, ts.LiveKey, "first.example")
		second := createDomain(t, ts, ts.LiveKey, "second.example")
		code := totp(t, secret, ts.Clock.Now())
		testserver.Expect(t, del(ts, first.ID, code), 200, "")
		testserver.Expect(t, del(ts, second.ID, code), http.StatusForbidden, "REAUTH_FAILED")
		ts.Clock.Advance(20 * time.Second) // still inside the code's window
		testserver.Expect(t, del(ts, second.ID, code), http.StatusForbidden, "REAUTH_FAILED")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains/" + second.ID, Key: ts.LiveKey}), 200, "")

		// The next step's code is fresh.
		ts.Clock.Advance(30 * time.Second)
		next := totp(t, secret, ts.Clock.Now())
		testserver.Must(t, next != code, "the test needs two different codes")
		testserver.Expect(t, del(ts, second.ID, next), 200, "")

		if b != testserver.Postgres {
			return // one SQLite file has one serving process
		}
		// Another node on the same database refuses the used code too.
		third := createDomain(t, ts, ts.LiveKey, "third.example")
		other := testserver.StartServer(t, b, map[string]string{"CARTEIRO_DATABASE_URL": ts.Config.DatabaseURL, "CARTEIRO_SECRET_KEY": ts.Config.SecretKey})
		other.LiveKey = ts.LiveKey
		other.Clock.Set(ts.Clock.Now())
		testserver.Expect(t, del(other, third.ID, next), http.StatusForbidden, "REAUTH_FAILED")
	})
}
