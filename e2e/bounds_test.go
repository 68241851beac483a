package e2e

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

// Request bounds of issue 23 (D60, D66, D67), each attack over the real API.

func validationDetails(t *testing.T, r *testserver.Response) (field, reason any) {
	t.Helper()
	if r.Status != 422 || r.ErrorCode() != "VALIDATION_ERROR" {
		t.Fatalf("want 422 VALIDATION_ERROR, got %d %s", r.Status, r.Body)
	}
	d := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)
	return d["field"], d["reason"]
}

func emailCount(t *testing.T, ts *testserver.TestServer, key string) int {
	t.Helper()
	r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails?limit=100", Key: key})
	testserver.Expect(t, r, http.StatusOK, "")
	return len(r.JSON(t)["emails"].([]any))
}

// D60: while bodies of CARTEIRO_MAX_INFLIGHT_BYTES are being read, another
// request with a body waits, then gets 503 with Retry-After; requests without
// a body are not held up, and once the room is back a small request is fine.
func TestInflightBodiesAreBoundedD60(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, map[string]string{"CARTEIRO_MAX_INFLIGHT_BYTES": "1MiB"})
		// A 1 MiB body that arrives slowly: its headers and first bytes only.
		conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
		testserver.Must(t, err == nil, "dial: %v", err)
		defer conn.Close()
		_, err = fmt.Fprintf(conn, "POST /v1/product/emails HTTP/1.1\r\nHost: carteiro.test\r\nAuthorization: Bearer %s\r\n"+
			"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n{\"from\":", ts.TestKey, 1<<20)
		testserver.Must(t, err == nil, "write: %v", err)

		// The slow body holds the whole bound once its handler runs; until
		// then a probe is answered (422, it is not an email) and tried again.
		var busy *testserver.Response
		for range 500 {
			r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails", Key: ts.TestKey, Body: `{}`})
			if r.Status == http.StatusServiceUnavailable {
				busy = r
				break
			}
			testserver.Expect(t, r, 422, "VALIDATION_ERROR")
			time.Sleep(20 * time.Millisecond)
		}
		testserver.Must(t, busy != nil, "a body beside 1 MiB in flight was never refused")
		testserver.Expect(t, busy, http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
		testserver.Must(t, busy.Header.Get("Retry-After") != "", "503 without Retry-After: %v", busy.Header)
		testserver.Must(t, emailCount(t, ts, ts.TestKey) == 0, "a GET is not held up, and nothing was stored")

		// The slow client gives up: its room comes back.
		_ = conn.Close()
		send(t, ts, ts.TestKey, map[string]any{"from": "a@x.example", "to": "b@y.example", "subject": "s", "text": "small"})
		// A body larger than the whole bound is still accepted alone.
		big := map[string]any{"from": "a@x.example", "to": "b@y.example", "subject": "s", "text": strings.Repeat("t", 3<<20/2)}
		send(t, ts, ts.TestKey, big)
	})
}

// D60: a batch whose template repeats a variable renders at most 40 MiB
// of html and text in all; the items past that fail alone, and what is
// stored is the bounded output, not the amplified one.
//
// Not parallel: renders 40 MiB per store under -race, CPU the other tests'
// waits would lose.
func TestTemplateBatchCannotAmplifyD60(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/templates", Key: ts.LiveKey,
			Body: map[string]any{"name": "amplifier", "subject": "s", "html": strings.Repeat("{{v}}", 40)}})
		testserver.Expect(t, r, http.StatusCreated, "")
		id := r.JSON(t)["id"].(string)
		// Each item: 100 KB of variable, rendered 40 times (4 MB of html)
		// plus as much generated text, so 12 items ask for about 96 MB.
		v := strings.Repeat("a", 100_000)
		items := make([]any, 12)
		for i := range items {
			items[i] = map[string]any{"from": "a@x.example", "to": "b@y.example", "templateId": id, "variables": map[string]any{"v": v}}
		}
		r = ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/batch", Key: ts.TestKey, Body: items})
		testserver.Expect(t, r, http.StatusAccepted, "")
		var out []struct {
			OK    bool        `json:"ok"`
			Data  *sendResult `json:"data"`
			Error string      `json:"error"`
		}
		r.Decode(t, &out)
		testserver.Must(t, len(out) == len(items), "response not aligned: %d items", len(out))
		stored, accepted := 0, 0
		for i, it := range out {
			if !it.OK {
				testserver.Must(t, strings.HasPrefix(it.Error, "TEMPLATE_RENDER_ERROR"), "item %d: %s", i, it.Error)
				continue
			}
			accepted++
			e := getEmail(t, ts, ts.TestKey, it.Data.ID)
			testserver.Must(t, e.HTML != nil && e.Text != nil, "item %d stored without its rendered parts", i)
			stored += len(*e.HTML) + len(*e.Text)
		}
		testserver.Must(t, accepted > 0 && accepted < len(items), "%d of %d items accepted, want the budget to stop some", accepted, len(items))
		testserver.Must(t, stored <= 40<<20, "the batch stored %d rendered bytes, over 40 MiB", stored)
		testserver.Must(t, emailCount(t, ts, ts.TestKey) == accepted, "failed items were stored")
	})
}

// D66: headers that vouch for a message's path or authentication, or that
// the service writes, are refused whatever their case; List-Unsubscribe is
// the transactional sender's to set.
func TestReservedHeadersD66(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		mail := func(name, value string) map[string]any {
			return map[string]any{"from": "a@x.example", "to": "b@y.example", "subject": "s", "text": "t", "headers": map[string]string{name: value}}
		}
		for _, name := range []string{"Sender", "sender", "Received", "RECEIVED", "Resent-From", "resent-message-id", "ARC-Seal",
			"arc-authentication-results", "Authentication-Results", "authentication-results", "Feedback-ID", "feedback-id"} {
			r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails", Key: ts.TestKey, Body: mail(name, "v")})
			field, reason := validationDetails(t, r)
			testserver.Must(t, field == "headers."+name && reason == "reserved_header", "%s: field %v reason %v", name, field, reason)
		}
		testserver.Must(t, emailCount(t, ts, ts.TestKey) == 0, "a refused header was stored")
		send(t, ts, ts.TestKey, map[string]any{"from": "a@x.example", "to": "b@y.example", "subject": "s", "text": "t",
			"headers": map[string]string{"List-Unsubscribe": "<mailto:u@x.example>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}})
	})
}

// D66: a header that cannot fold under 998 octets (here 990 octets without
// a space under a 92-character name) is a 422 at the API, not an accepted
// email that fails at send time.
func TestUnfoldableHeaderRefusedAtAPID66(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		name := "X-" + strings.Repeat("n", 90)
		r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails", Key: ts.TestKey,
			Body: map[string]any{"from": "a@x.example", "to": "b@y.example", "subject": "s", "text": "t", "headers": map[string]string{name: strings.Repeat("v", 990)}}})
		field, reason := validationDetails(t, r)
		testserver.Must(t, field == "headers."+name && reason == "too_long", "field %v reason %v", field, reason)
		testserver.Must(t, emailCount(t, ts, ts.TestKey) == 0, "the refused email was stored")
		// The same value in words folds, and is delivered.
		words := strings.TrimSpace(strings.Repeat("vvvvvvvvv ", 99))
		res := send(t, ts, ts.TestKey, map[string]any{"from": "a@x.example", "to": "b@y.example", "subject": "s", "text": "t", "headers": map[string]string{name: words}})
		waitStatus(t, ts, ts.TestKey, res.ID, "delivered")
	})
}

// D67: "R <r@x>, E <e@y>" is two addresses in one string: refused wherever
// an address string is accepted, never sent to one of them.
func TestAddressStringWithTwoAddressesD67(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		const two = "R <r@x.example>, E <e@y.example>"
		base := func(k string, v any) map[string]any {
			m := map[string]any{"from": "a@x.example", "to": "b@y.example", "subject": "s", "text": "t"}
			m[k] = v
			return m
		}
		for _, c := range []struct {
			body  map[string]any
			field string
		}{
			{base("to", two), "to"},
			{base("to", "r@x.example; e@y.example"), "to"},
			{base("to", []string{"b@y.example", two}), "to[1]"},
			{base("cc", two), "cc"},
			{base("bcc", two), "bcc"},
			{base("replyTo", two), "replyTo"},
			{base("from", "A <a@x.example>, B <b@x.example>"), "from"},
		} {
			r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails", Key: ts.TestKey, Body: c.body})
			field, reason := validationDetails(t, r)
			testserver.Must(t, field == c.field && reason == "invalid_email", "%v: field %v reason %v", c.body, field, reason)
		}
		testserver.Must(t, emailCount(t, ts, ts.TestKey) == 0, "a refused email was stored")

		// A comma inside quotes is part of the name, and reads back quoted.
		res := send(t, ts, ts.TestKey, base("to", `"Silva, Ana" <ana@y.example>`))
		e := getEmail(t, ts, ts.TestKey, res.ID)
		testserver.Must(t, len(e.To) == 1 && e.To[0] == `"Silva, Ana" <ana@y.example>`, "to %v", e.To)

		// Other address strings: senders, suppressions, contacts, broadcasts.
		for _, c := range []struct {
			path, field string
			body        map[string]any
		}{
			{"/v1/product/senders", "email", map[string]any{"email": "r@x.example, e@y.example"}},
			{"/v1/product/suppressions", "email", map[string]any{"email": "r@x.example; e@y.example"}},
		} {
			r := ts.Do(t, testserver.Request{Method: "POST", Path: c.path, Key: ts.LiveKey, Body: c.body})
			field, reason := validationDetails(t, r)
			testserver.Must(t, field == c.field && reason == "invalid_email", "%s: field %v reason %v", c.path, field, reason)
		}
		aud := newAudience(t, ts, []map[string]any{{"email": "c@y.example"}})
		r := audienceReq(t, ts, "POST", "/"+aud+"/contacts", map[string]any{"email": "r@x.example, e@y.example"})
		field, reason := validationDetails(t, r)
		testserver.Must(t, field == "email" && reason == "invalid_email", "contact: field %v reason %v", field, reason)
		r = broadcastReq(t, ts, ts.LiveKey, "POST", "", map[string]any{"audienceId": aud, "fromEmail": two, "subject": "s", "text": "t"})
		field, reason = validationDetails(t, r)
		testserver.Must(t, field == "fromEmail" && reason == "invalid_email", "broadcast: field %v reason %v", field, reason)
	})
}
