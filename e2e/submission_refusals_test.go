package e2e

import (
	"fmt"
	"net/smtp"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

func plainMessage(from, to string) string {
	return "From: " + from + "\r\nTo: " + to + "\r\nSubject: hello\r\n\r\nhello\r\n"
}

func mustPrefix(t *testing.T, what, got, want string) {
	t.Helper()
	testserver.Must(t, strings.HasPrefix(got, want), "%s: client saw %q, want %q...", what, got, want)
}

// TestSubmissionRefusalsD74: each refusal of D74, as the client sees it.
func TestSubmissionRefusalsD74(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, sink := submissionServer(t, b, nil)

		// 535 5.7.8: a password that is no API key.
		c := submissionClient(t, ts.SubmissionAddr(), true)
		err := c.Auth(smtp.PlainAuth("", "user", "re_live_not-a-key", "127.0.0.1"))
		testserver.Must(t, err != nil && strings.HasPrefix(err.Error(), "535") && strings.Contains(err.Error(), "5.7.8"), "bad key: %v", err)

		c = authedClient(t, ts, ts.LiveKey)
		// 550 5.7.1: From on a domain nobody verified.
		mustPrefix(t, "unverified sender", transact(t, c, "x@unverified.example", []string{"ana@customer.example"},
			plainMessage("x@unverified.example", "ana@customer.example")), "550 5.7.1")
		// 452 4.5.3: the 51st recipient.
		var many []string
		for i := range 51 {
			many = append(many, fmt.Sprintf("r%d@customer.example", i))
		}
		mustPrefix(t, "51 recipients", transact(t, c, "orders@shop.example", many, ""), "452 4.5.3")
		testserver.Must(t, command(t, c, "RSET", 250) == "", "RSET")
		// 552 5.3.4: a message declared over 40 MB.
		mustPrefix(t, "over 40 MB", command(t, c, "MAIL FROM:<orders@shop.example> SIZE=40000001", 250), "552 5.3.4")
		// 554 5.6.0: a message without a From header.
		mustPrefix(t, "unreadable", transact(t, c, "orders@shop.example", []string{"ana@customer.example"},
			"To: ana@customer.example\r\nSubject: x\r\n\r\nno from\r\n"), "554 5.6.0")
		// 554 5.6.0 as well for content POST /emails refuses (no subject).
		mustPrefix(t, "no subject", transact(t, c, "orders@shop.example", []string{"ana@customer.example"},
			"From: orders@shop.example\r\nTo: ana@customer.example\r\n\r\nx\r\n"), "554 5.6.0")

		// A domain-restricted key (D8) cannot send from another domain,
		// even one the organization verified.
		d := createDomain(t, ts, ts.LiveKey, "other.example")
		publish(ts, d)
		testserver.Must(t, verify(t, ts, ts.LiveKey, d.ID).Status == "verified", "other.example not verified")
		restricted := ts.NewKey(t, app.KeyRequest{OrgID: ts.OrgID, Name: "shop only", Mode: carteiro.ModeLive,
			Permission: carteiro.PermissionSending, Domain: "shop.example"})
		rc := authedClient(t, ts, restricted)
		mustPrefix(t, "restricted key, other domain", transact(t, rc, "news@other.example", []string{"ana@customer.example"},
			plainMessage("news@other.example", "ana@customer.example")), "550 5.7.1")
		mustPrefix(t, "restricted key, own domain", transact(t, rc, "orders@shop.example", []string{"ana@customer.example"},
			plainMessage("orders@shop.example", "ana@customer.example")), "250 2.0.0 queued id=")

		// MAIL before AUTH is refused.
		mustPrefix(t, "no AUTH", command(t, submissionClient(t, ts.SubmissionAddr(), true), "MAIL FROM:<orders@shop.example>", 250), "530 5.7.0")

		// The restricted key's message was sent; no refused one was ever
		// accepted, so it stays the only one.
		_, err = sink.WaitForMessages(1, 10*time.Second)
		testserver.Must(t, err == nil && len(sink.Messages()) == 1, "relay got %d messages (%v), want only the accepted one", len(sink.Messages()), err)
	})
}

// TestSubmissionRateLimitD74: past the key's rate limit (the HTTP API's
// per-key bucket) MAIL gets 451 4.7.0; a test key's message goes to the
// sandbox (D7, D30), never to the relay.
func TestSubmissionRateLimitD74(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		sink := testutil.NewSMTPServer(t)
		ts := testserver.StartServer(t, b, map[string]string{"CARTEIRO_SUBMISSION_ADDR": "127.0.0.1:0", "CARTEIRO_RATE_LIMIT_KEY": "1/1h,1",
			"CARTEIRO_DELIVERY": "relay", "CARTEIRO_RELAY_URL": "smtp+plain://" + sink.Addr()})
		c := authedClient(t, ts, ts.TestKey)
		reply := transact(t, c, "orders@anything.example", []string{"delivered@customer.example"},
			plainMessage("orders@anything.example", "delivered@customer.example"))
		m := queuedReply.FindStringSubmatch(reply)
		testserver.Must(t, m != nil, "test key's message: %q", reply)
		mustPrefix(t, "second message within the limit's period", command(t, c, "MAIL FROM:<orders@anything.example>", 250), "451 4.7.0")

		// Only the test key sees test emails (D7), and its bucket is
		// empty now: the store answers instead of GET /emails.
		e, err := ts.Store.Email(t.Context(), ts.OrgID, carteiro.ModeTest, m[1])
		testserver.Must(t, err == nil && e.Sandbox, "the test key's email is not a sandbox one: %+v %v", e, err)
		testserver.Must(t, len(sink.Messages()) == 0, "a sandbox message reached the relay")
	})
}

// TestSubmissionAuthNeedsTLSD74: a client that is not on loopback may not
// AUTH before STARTTLS; AUTH is not even offered. The test connects over
// loopback, so the server is told to treat loopback as remote
// (testserver.SubmissionLoopbackIsRemote).
func TestSubmissionAuthNeedsTLSD74(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, _ := submissionServer(t, b, map[string]string{testserver.SubmissionLoopbackIsRemote: "true"})
		c := submissionClient(t, ts.SubmissionAddr(), false)
		offered, _ := c.Extension("AUTH")
		testserver.Must(t, !offered, "AUTH offered before STARTTLS to a remote client")
		mustPrefix(t, "AUTH before STARTTLS", command(t, c, "AUTH PLAIN AGFueQB4", 235), "530 5.7.0")

		c = submissionClient(t, ts.SubmissionAddr(), true)
		offered, mechs := c.Extension("AUTH")
		testserver.Must(t, offered && strings.Contains(mechs, "PLAIN") && strings.Contains(mechs, "LOGIN"), "AUTH after STARTTLS: %v %q", offered, mechs)
		testserver.Must(t, c.Auth(smtp.PlainAuth("", "u", ts.LiveKey, "127.0.0.1")) == nil, "AUTH after STARTTLS refused")
	})
}

// TestSubmissionWarmupQuotaD74: once the domain's warmup quota of the day
// is spent (D34, 50 on day 1), a submitted message gets 451 4.7.0 and the
// client keeps it for later.
func TestSubmissionWarmupQuotaD74(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, _ := submissionServer(t, b, map[string]string{"CARTEIRO_WARMUP": "on"})
		item := map[string]any{"from": "orders@shop.example", "to": "a@customer.example", "subject": "w", "text": "t"}
		batch := make([]any, 50)
		for i := range batch {
			batch[i] = item
		}
		r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/batch", Key: ts.LiveKey, Body: batch})
		testserver.Expect(t, r, 202, "")
		testserver.Must(t, strings.Count(string(r.Body), `"ok":true`) == 50, "the day's 50 were not all accepted: %s", r.Body)
		c := authedClient(t, ts, ts.LiveKey)
		mustPrefix(t, "past the warmup quota", transact(t, c, "orders@shop.example", []string{"a@customer.example"},
			plainMessage("orders@shop.example", "a@customer.example")), "451 4.7.0")
	})
}
