package e2e

import (
	"bytes"
	"fmt"
	"mime"
	"net/mail"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

const broadcastsPath = "/v1/product/broadcasts"

func broadcastReq(t *testing.T, ts *testserver.TestServer, key, method, path string, body any) *testserver.Response {
	t.Helper()
	return ts.Do(t, testserver.Request{Method: method, Path: broadcastsPath + path, Key: key, Body: body})
}

// newAudience makes an audience with the given contacts ({email, firstName}).
func newAudience(t *testing.T, ts *testserver.TestServer, contacts []map[string]any) string {
	t.Helper()
	r := audienceReq(t, ts, "POST", "", map[string]any{"name": "list"})
	testserver.Expect(t, r, 201, "")
	id := r.JSON(t)["id"].(string)
	r = audienceReq(t, ts, "POST", "/"+id+"/contacts/bulk", map[string]any{"contacts": contacts})
	testserver.Expect(t, r, 200, "")
	testserver.Must(t, r.JSON(t)["inserted"] == float64(len(contacts)), "bulk %s", r.Body)
	return id
}

// sendTextBroadcast imports n contacts (prefix0000@customer.example and
// on) into a new audience and sends them a text broadcast from
// news@shop.example; it returns the broadcast's id.
func sendTextBroadcast(t *testing.T, ts *testserver.TestServer, n int, prefix string) string {
	t.Helper()
	contacts := make([]map[string]any, n)
	for i := range contacts {
		contacts[i] = map[string]any{"email": fmt.Sprintf("%s%04d@customer.example", prefix, i)}
	}
	aud := newAudience(t, ts, contacts)
	r := broadcastReq(t, ts, ts.LiveKey, "POST", "", map[string]any{"audienceId": aud, "fromEmail": "news@shop.example", "subject": "news", "text": "t"})
	id := r.JSON(t)["id"].(string)
	testserver.Expect(t, broadcastReq(t, ts, ts.LiveKey, "POST", "/"+id+"/send", nil), 202, "")
	return id
}

func waitBroadcast(t *testing.T, ts *testserver.TestServer, key, id, status string) map[string]any {
	t.Helper()
	var b map[string]any
	deadline := time.Now().Add(60 * time.Second) // as waitFor
	for time.Now().Before(deadline) {
		b = broadcastReq(t, ts, key, "GET", "/"+id, nil).JSON(t)
		if b["status"] == status {
			return b
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("broadcast %s is %v, want %s: %v", id, b["status"], status, b)
	return nil
}

func parseMessage(t *testing.T, m testutil.ReceivedMessage) (*mail.Message, map[string]string) {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(m.Data))
	testserver.Must(t, err == nil, "parse: %v", err)
	return msg, walkMIME(t, msg.Header.Get("Content-Type"), msg.Body)
}

// TestBroadcastToAudience sends a broadcast through the real delivery
// engine: personalised, suppressed contacts left out and counted, RFC 8058
// headers signed by DKIM, and a one-click unsubscribe that works from the
// received message's own header while GET changes nothing.
func TestBroadcastToAudience(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp, _ := relayServer(t, b, nil)
		aud := newAudience(t, ts, []map[string]any{
			{"email": "ana@customer.example", "firstName": "Ana", "metadata": map[string]any{"plan": "pro"}},
			{"email": "bia@customer.example", "firstName": "Bia"},
			{"email": "blocked@customer.example", "firstName": "Zé"},
			{"email": "carlos@customer.example"},
		})
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/suppressions", Key: ts.LiveKey,
			Body: map[string]any{"email": "blocked@customer.example"}}), 201, "")

		r := broadcastReq(t, ts, ts.LiveKey, "POST", "", map[string]any{
			"audienceId": aud, "fromEmail": "Loja <news@shop.example>", "subject": "Oferta para {{contact.firstName}}",
			"html":      `<p>Olá {{#if contact.firstName}}{{contact.firstName}}{{else}}cliente{{/if}} ({{contact.metadata.plan}}) {{promo}}</p><a href="{{unsubscribeUrl}}">sair</a>`,
			"variables": map[string]any{"promo": "10% off"}, "name": "Black Friday", "replyTo": "sac@shop.example",
		})
		testserver.Expect(t, r, 201, "")
		bc := r.JSON(t)
		id := bc["id"].(string)
		testserver.Must(t, bc["status"] == "draft" && bc["audienceName"] == "list" && bc["recipientsTotal"] == 0.0 &&
			bc["fromEmail"] == "Loja <news@shop.example>", "created %v", bc)
		testserver.Expect(t, broadcastReq(t, ts, ts.LiveKey, "POST", "/"+id+"/cancel", nil), 409, "INVALID_STATE")

		r = broadcastReq(t, ts, ts.LiveKey, "POST", "/"+id+"/send", nil)
		testserver.Expect(t, r, 202, "")
		testserver.Must(t, r.JSON(t)["status"] == "sending" && r.JSON(t)["id"] == id, "send %s", r.Body)
		testserver.Expect(t, broadcastReq(t, ts, ts.LiveKey, "POST", "/"+id+"/send", nil), 409, "INVALID_STATE")

		done := waitBroadcast(t, ts, ts.LiveKey, id, "sent")
		testserver.Must(t, done["recipientsTotal"] == 4.0 && done["recipientsQueued"] == 3.0 && done["recipientsFailed"] == 1.0 &&
			done["sentAt"] != nil, "counters %v", done)
		_, err := smtp.WaitForMessages(3, 15*time.Second)
		testserver.Must(t, err == nil, "messages: %v", err)
		time.Sleep(200 * time.Millisecond)
		msgs := smtp.Messages()
		testserver.Must(t, len(msgs) == 3, "%d messages, want 3", len(msgs))
		byRcpt := map[string]testutil.ReceivedMessage{}
		for _, m := range msgs {
			testserver.Must(t, len(m.To) == 1, "one recipient per message: %v", m.To)
			byRcpt[m.To[0]] = m
		}
		_, blocked := byRcpt["blocked@customer.example"]
		testserver.Must(t, !blocked, "a suppressed contact received the broadcast")
		var unsubscribeURL string
		for rcpt, m := range byRcpt {
			verifyDKIM(t, ts, m.Data)
			msg, parts := parseMessage(t, m)
			h := msg.Header
			lu := h.Get("List-Unsubscribe")
			testserver.Must(t, strings.HasPrefix(lu, "<http") && strings.Contains(lu, "/u/") && h.Get("List-Unsubscribe-Post") == "List-Unsubscribe=One-Click",
				"%s: unsubscribe headers %q %q", rcpt, lu, h.Get("List-Unsubscribe-Post"))
			sig := strings.ToLower(h.Get("Dkim-Signature"))
			testserver.Must(t, strings.Contains(sig, "list-unsubscribe") && strings.Contains(sig, "list-unsubscribe-post"), "DKIM does not cover the unsubscribe headers: %s", sig)
			testserver.Must(t, h.Get("Reply-To") == "sac@shop.example", "reply-to %q", h.Get("Reply-To"))
			subject, _ := new(mime.WordDecoder).DecodeHeader(h.Get("Subject"))
			switch rcpt {
			case "ana@customer.example":
				testserver.Must(t, subject == "Oferta para Ana" && strings.Contains(parts["text/html"], "Olá Ana (pro) 10% off"), "ana got %q %q", subject, parts["text/html"])
			case "carlos@customer.example":
				testserver.Must(t, strings.TrimSpace(subject) == "Oferta para" && strings.Contains(parts["text/html"], "Olá cliente () 10% off"), "carlos got %q %q", subject, parts["text/html"])
				// D71: the https link first, then the mailto address.
				first, _, _ := strings.Cut(lu, ",")
				unsubscribeURL = strings.Trim(first, "<>")
			}
		}

		// The unsubscribe link from carlos's own message: GET asks, POST acts.
		u, err := url.Parse(unsubscribeURL)
		testserver.Must(t, err == nil, "url %q", unsubscribeURL)
		r = ts.Do(t, testserver.Request{Method: "GET", Path: u.Path, Header: map[string]string{"Accept-Language": "pt-BR"}})
		testserver.Expect(t, r, 200, "")
		testserver.Must(t, strings.Contains(string(r.Body), `<form method="post">`) && strings.Contains(string(r.Body), "Cancelar inscrição"), "page %s", r.Body)
		unsubscribed := func() bool {
			r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/suppressions?reason=unsubscribe", Key: ts.LiveKey})
			return strings.Contains(string(r.Body), "carlos@customer.example")
		}
		testserver.Must(t, !unsubscribed(), "GET unsubscribed")
		r = ts.Do(t, testserver.Request{Method: "POST", Path: u.Path, Body: "List-Unsubscribe=One-Click"})
		testserver.Expect(t, r, 200, "")
		testserver.Must(t, unsubscribed(), "POST did not unsubscribe")
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/suppressions?reason=unsubscribe", Key: ts.LiveKey})
		testserver.Must(t, strings.Contains(string(r.Body), `"category":"marketing"`), "category %s", r.Body)
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: u.Path}), 200, "") // repeatable
		forged := tamper(u.Path)
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: forged}), 404, "NOT_FOUND")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: forged}), 404, "NOT_FOUND")

		// A second broadcast leaves carlos out; transactional mail still reaches him (D45).
		smtp.Reset()
		ts.Clock.Advance(time.Second) // D27: rows sharing a createdAt are never split across pages
		r = broadcastReq(t, ts, ts.LiveKey, "POST", "", map[string]any{"audienceId": aud, "fromEmail": "news@shop.example", "subject": "Outra", "text": "Oi {{contact.email}}"})
		id2 := r.JSON(t)["id"].(string)
		testserver.Expect(t, broadcastReq(t, ts, ts.LiveKey, "POST", "/"+id2+"/send", nil), 202, "")
		done = waitBroadcast(t, ts, ts.LiveKey, id2, "sent")
		testserver.Must(t, done["recipientsQueued"] == 2.0 && done["recipientsFailed"] == 2.0, "second counters %v", done)
		res := send(t, ts, ts.LiveKey, map[string]any{"from": "orders@shop.example", "to": "carlos@customer.example", "subject": "Recibo", "text": "t"})
		waitStatus(t, ts, ts.LiveKey, res.ID, "delivered")
		msgs, _ = smtp.WaitForMessages(3, 15*time.Second)
		got := []string{}
		for _, m := range msgs {
			msg, parts := parseMessage(t, m)
			subject := msg.Header.Get("Subject")
			got = append(got, m.To[0]+":"+subject)
			if subject == "Outra" {
				testserver.Must(t, strings.Contains(parts["text/plain"], "Oi "+m.To[0]), "text broadcast %q", parts["text/plain"])
			}
		}
		testserver.Must(t, len(msgs) == 3 && !strings.Contains(fmt.Sprint(got), "carlos@customer.example:Outra") &&
			strings.Contains(fmt.Sprint(got), "carlos@customer.example:Recibo"), "second round %v", got)

		list := broadcastReq(t, ts, ts.LiveKey, "GET", "?status=sent&limit=1", nil)
		testserver.Expect(t, list, 200, "")
		lj := list.JSON(t)
		testserver.Must(t, len(lj["broadcasts"].([]any)) == 1 && lj["nextCursor"] != nil, "list %s", list.Body)
		next := broadcastReq(t, ts, ts.LiveKey, "GET", "?status=sent&limit=1&after="+url.QueryEscape(lj["nextCursor"].(string)), nil)
		testserver.Must(t, len(next.JSON(t)["broadcasts"].([]any)) == 1 && next.JSON(t)["nextCursor"] == nil, "page 2 %s", next.Body)
	})
}

func TestBroadcastValidationAndModes(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, _, _ := relayServer(t, b, nil)
		aud := newAudience(t, ts, []map[string]any{{"email": "a@customer.example"}})
		base := func(extra map[string]any) map[string]any {
			m := map[string]any{"audienceId": aud, "fromEmail": "news@shop.example", "subject": "s", "html": "<p>x</p>"}
			for k, v := range extra {
				if v == nil {
					delete(m, k)
				} else {
					m[k] = v
				}
			}
			return m
		}
		for _, c := range []struct {
			body  map[string]any
			field string
		}{
			{base(map[string]any{"audienceId": nil}), "audienceId"},
			{base(map[string]any{"audienceId": "0190aaaa-0000-7000-8000-000000000000"}), "audienceId"},
			{base(map[string]any{"fromEmail": nil}), "fromEmail"},
			{base(map[string]any{"fromEmail": "nope"}), "fromEmail"},
			{base(map[string]any{"subject": nil}), "subject"},
			{base(map[string]any{"html": nil}), "html"},
			{base(map[string]any{"templateId": "0190aaaa-0000-7000-8000-000000000000", "html": nil}), "templateId"},
			{base(map[string]any{"scheduledAt": "soon"}), "scheduledAt"},
			{base(map[string]any{"scheduledAt": time.Now().Add(60 * 24 * time.Hour).Format(time.RFC3339)}), "scheduledAt"},
			{base(map[string]any{"bogus": 1}), "bogus"},
		} {
			r := broadcastReq(t, ts, ts.LiveKey, "POST", "", c.body)
			testserver.Expect(t, r, 422, "VALIDATION_ERROR")
			testserver.Must(t, fieldOfError(t, r) == c.field, "%v: %s", c.body, r.Body)
		}
		testserver.Expect(t, broadcastReq(t, ts, ts.LiveKey, "POST", "", base(map[string]any{"html": "{{#if x}}"})), 422, "TEMPLATE_SYNTAX_ERROR")
		testserver.Expect(t, broadcastReq(t, ts, ts.LiveKey, "POST", "", base(map[string]any{"fromEmail": "news@unverified.example"})), 403, "DOMAIN_NOT_VERIFIED")
		testserver.Expect(t, broadcastReq(t, ts, ts.LiveKey, "GET", "?status=bogus", nil), 422, "VALIDATION_ERROR")
		testserver.Expect(t, broadcastReq(t, ts, ts.LiveKey, "GET", "?limit=201", nil), 422, "VALIDATION_ERROR")

		// A test-mode broadcast is invisible to live keys and only simulated (D7).
		r := broadcastReq(t, ts, ts.TestKey, "POST", "", base(nil))
		testserver.Expect(t, r, 201, "")
		testID := r.JSON(t)["id"].(string)
		testserver.Expect(t, broadcastReq(t, ts, ts.LiveKey, "GET", "/"+testID, nil), 404, "NOT_FOUND")
		testserver.Must(t, !strings.Contains(string(broadcastReq(t, ts, ts.LiveKey, "GET", "", nil).Body), testID), "live list shows a test broadcast")
		testserver.Expect(t, broadcastReq(t, ts, ts.TestKey, "POST", "/"+testID+"/send", nil), 202, "")
		done := waitBroadcast(t, ts, ts.TestKey, testID, "sent")
		testserver.Must(t, done["recipientsQueued"] == 1.0, "test broadcast %v", done)

		// With a template: its HTML, the broadcast's subject and variables, the contact's fields.
		r = ts.Do(t, testserver.Request{Method: "POST", Path: templatesPath, Key: ts.TestKey,
			Body: map[string]any{"name": "promo", "subject": "ignored", "html": "<p>{{promo}} for {{contact.email}}</p>"}})
		testserver.Expect(t, r, 201, "")
		tmpl := r.JSON(t)["id"].(string)
		testserver.Expect(t, broadcastReq(t, ts, ts.TestKey, "POST", "", base(map[string]any{"templateId": tmpl})), 422, "VALIDATION_ERROR") // and html
		r = broadcastReq(t, ts, ts.TestKey, "POST", "", base(map[string]any{"templateId": tmpl, "html": nil, "subject": "Promo {{contact.email}}",
			"variables": map[string]any{"promo": "2x1"}}))
		testserver.Expect(t, r, 201, "")
		withTemplate := r.JSON(t)["id"].(string)
		testserver.Expect(t, broadcastReq(t, ts, ts.TestKey, "POST", "/"+withTemplate+"/send", nil), 202, "")
		waitBroadcast(t, ts, ts.TestKey, withTemplate, "sent")
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails?limit=100", Key: ts.TestKey})
		testserver.Must(t, strings.Contains(string(r.Body), `"subject":"Promo a@customer.example"`) &&
			strings.Contains(string(r.Body), `<p>2x1 for a@customer.example</p>`), "templated broadcast emails: %s", r.Body)

		// Scheduled: it starts by itself at its time; cancel before that stops it.
		at := ts.Clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		r = broadcastReq(t, ts, ts.LiveKey, "POST", "", base(map[string]any{"scheduledAt": at}))
		testserver.Expect(t, r, 201, "")
		sched := r.JSON(t)
		testserver.Must(t, sched["status"] == "scheduled" && sched["scheduledAt"] != nil, "scheduled %v", sched)
		r = broadcastReq(t, ts, ts.LiveKey, "POST", "", base(map[string]any{"scheduledAt": at}))
		cancelled := r.JSON(t)["id"].(string)
		r = broadcastReq(t, ts, ts.LiveKey, "POST", "/"+cancelled+"/cancel", nil)
		testserver.Expect(t, r, 200, "")
		testserver.Must(t, r.JSON(t)["status"] == "cancelled" && r.JSON(t)["cancelledAt"] != nil, "cancel %s", r.Body)
		testserver.Expect(t, broadcastReq(t, ts, ts.LiveKey, "POST", "/"+cancelled+"/send", nil), 409, "INVALID_STATE")
		ts.Clock.Advance(2 * time.Hour)
		waitBroadcast(t, ts, ts.LiveKey, sched["id"].(string), "sent")
		testserver.Must(t, broadcastReq(t, ts, ts.LiveKey, "GET", "/"+cancelled, nil).JSON(t)["status"] == "cancelled", "a cancelled broadcast started")
	})
}

// TestBroadcastCancelMidway pauses a broadcast at the domain's warmup
// quota (50 on the first day, D34), cancels it while deliveries are under
// way, and checks that nothing is handed to SMTP after the cancel commits
// except what was in flight, that delivered emails stay delivered, and
// that the next day's resume does not happen.
func TestBroadcastCancelMidway(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp, _ := relayServer(t, b, map[string]string{"CARTEIRO_WARMUP": "on"})
		smtp.SetStall(testutil.StageData, 100*time.Millisecond) // a slow server keeps emails queued
		id := sendTextBroadcast(t, ts, 300, "c")
		var bc map[string]any
		waitFor(t, func() bool {
			bc = broadcastReq(t, ts, ts.LiveKey, "GET", "/"+id, nil).JSON(t)
			return bc["recipientsQueued"] == 50.0
		})
		_, err := smtp.WaitForMessages(3, 15*time.Second)
		testserver.Must(t, err == nil, "nothing delivered: %v", err)
		bc = broadcastReq(t, ts, ts.LiveKey, "GET", "/"+id, nil).JSON(t)
		testserver.Must(t, bc["status"] == "sending" && bc["recipientsQueued"] == 50.0 && bc["recipientsTotal"] == 300.0,
			"paused at the warmup quota: %v", bc)

		r := broadcastReq(t, ts, ts.LiveKey, "POST", "/"+id+"/cancel", nil)
		testserver.Expect(t, r, 200, "")
		time.Sleep(2 * time.Second)
		bc = broadcastReq(t, ts, ts.LiveKey, "GET", "/"+id, nil).JSON(t)
		testserver.Must(t, bc["status"] == "cancelled" && bc["cancelledAt"] != nil, "after cancel %v", bc)
		// The 250 contacts not handed over get nothing; of the 50 handed
		// over, those a delivery worker had claimed (in flight) may still
		// arrive, and every other one is cancelled, never sent.
		counts := map[string]int{}
		for _, status := range []string{"cancelled", "delivered", "sent", "processing", "queued"} {
			r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails?limit=100&status=" + status, Key: ts.LiveKey})
			counts[status] = len(r.JSON(t)["emails"].([]any))
		}
		testserver.Must(t, counts["queued"] == 0 && counts["cancelled"]+counts["delivered"]+counts["sent"]+counts["processing"] == 50,
			"emails after the cancel: %v", counts)
		waitFor(t, func() bool { return len(smtp.Messages()) == 50-counts["cancelled"] })
		received := map[string]bool{}
		for _, m := range smtp.Messages() {
			received[m.To[0]] = true
		}
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails?limit=100&status=cancelled", Key: ts.LiveKey})
		for _, e := range r.JSON(t)["emails"].([]any) {
			to := e.(map[string]any)["to"].([]any)[0].(string)
			testserver.Must(t, !received[to], "%s got an email that was cancelled", to)
		}

		// The next day the quota is back, but a cancelled broadcast does not resume.
		ts.Clock.Advance(25 * time.Hour)
		time.Sleep(1500 * time.Millisecond)
		bc = broadcastReq(t, ts, ts.LiveKey, "GET", "/"+id, nil).JSON(t)
		testserver.Must(t, bc["status"] == "cancelled" && bc["recipientsQueued"] == 50.0, "resumed after the cancel: %v", bc)
	})
}

// TestTransactionalEmailOvertakesBroadcast: a broadcast hands its whole
// audience to the delivery queue in moments; an email sent through the API
// meanwhile is delivered next, not after every broadcast email queued
// before it.
func TestTransactionalEmailOvertakesBroadcast(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp, _ := relayServer(t, b, map[string]string{"CARTEIRO_WARMUP": "off", "CARTEIRO_TRACKING": "false"})
		smtp.SetStall(testutil.StageData, 50*time.Millisecond) // about 300 messages a second at most
		const audience = 1500
		id := sendTextBroadcast(t, ts, audience, "n")
		waitBroadcast(t, ts, ts.LiveKey, id, "sent") // every recipient is in the queue
		before := len(smtp.Messages())
		testserver.Must(t, before < audience/2, "the broadcast was delivered too fast to test (%d of %d already)", before, audience)

		send(t, ts, ts.LiveKey, map[string]any{"from": "alerts@shop.example", "to": []string{"reset@customer.example"}, "subject": "Reset your password", "text": "code 123"})
		position := -1
		waitFor(t, func() bool {
			for i, m := range smtp.Messages() {
				if m.To[0] == "reset@customer.example" {
					position = i
					return true
				}
			}
			return false
		})
		// Only the deliveries already running, and those started before the
		// queue next fetches work (its poll interval is 200 ms, at about 300
		// messages a second), may arrive before it; in arrival order it
		// would come after all the broadcast's remaining emails.
		testserver.Must(t, position-before <= 200, "the transactional email arrived as message %d, after %d broadcast emails sent after it was accepted", position, position-before)
		t.Logf("%s: the transactional email arrived as message %d of %d, %d after its accept", b, position+1, audience+1, position-before)
		_, err := smtp.WaitForMessages(audience+1, 60*time.Second)
		testserver.Must(t, err == nil, "the broadcast was not delivered whole: %v", err)
	})
}

// TestBroadcastResumesAfterWarmupPause sends to more contacts than one
// fan-out chunk holds (1,000), so two chunks run in parallel and both meet
// the first day's warmup quota (50, D34): one hands some contacts over,
// the other none. When the quota allows the rest, both resume where they
// stopped: every contact gets exactly one email and the broadcast is sent.
func TestBroadcastResumesAfterWarmupPause(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp, _ := relayServer(t, b, map[string]string{"CARTEIRO_WARMUP": "on", "CARTEIRO_TRACKING": "false"})
		const audience = 1100
		id := sendTextBroadcast(t, ts, audience, "w")
		var bc map[string]any
		waitFor(t, func() bool {
			bc = broadcastReq(t, ts, ts.LiveKey, "GET", "/"+id, nil).JSON(t)
			return bc["recipientsQueued"] == 50.0
		})
		_, err := smtp.WaitForMessages(50, 30*time.Second)
		testserver.Must(t, err == nil, "the first day's 50 were not delivered: %v", err)
		time.Sleep(500 * time.Millisecond) // nothing more may come today
		bc = broadcastReq(t, ts, ts.LiveKey, "GET", "/"+id, nil).JSON(t)
		testserver.Must(t, bc["status"] == "sending" && bc["recipientsQueued"] == 50.0 && bc["recipientsTotal"] == float64(audience) &&
			len(smtp.Messages()) == 50, "paused at the quota: %v, %d delivered", bc, len(smtp.Messages()))

		// Day 7's quota is 3,000: everything left goes out.
		ts.Clock.Advance(6 * 24 * time.Hour)
		bc = waitBroadcast(t, ts, ts.LiveKey, id, "sent")
		testserver.Must(t, bc["recipientsQueued"] == float64(audience) && bc["recipientsFailed"] == 0.0 && bc["recipientsTotal"] == float64(audience),
			"sent: %v", bc)
		_, err = smtp.WaitForMessages(audience, 60*time.Second)
		testserver.Must(t, err == nil, "not delivered whole: %v", err)
		got := map[string]int{}
		for _, m := range smtp.Messages() {
			got[m.To[0]]++
		}
		for i := range audience {
			to := fmt.Sprintf("w%04d@customer.example", i)
			testserver.Must(t, got[to] == 1, "%s got %d emails", to, got[to])
		}
	})
}
