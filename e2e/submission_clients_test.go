package e2e

import (
	"context"
	"crypto/tls"
	"net/smtp"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

// smtplibScript sends one message the way Python applications do:
// smtplib with STARTTLS and AUTH LOGIN (forced: smtplib would pick PLAIN),
// printing the reply to DATA.
const smtplibScript = `
import smtplib, ssl, sys
host, port, key, msg = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.stdin.read()
s = smtplib.SMTP(host, port, timeout=20)
s.ehlo("python.example")
s.starttls(context=ssl._create_unverified_context())
s.ehlo("python.example")
s.user, s.password = "python", key
code, resp = s.auth("LOGIN", s.auth_login, initial_response_ok=False)
assert code == 235, (code, resp)
s.mail("orders@shop.example")
s.rcpt("ana@customer.example")
s.rcpt("carlos@customer.example")
s.rcpt("audit@shop.example")
code, resp = s.data(msg.encode())
print(code, resp.decode())
s.quit()
`

// TestSubmissionPythonSmtplibLogin (D74): Python's smtplib, STARTTLS and
// AUTH LOGIN, sends the same message; it is accepted and delivered.
func TestSubmissionPythonSmtplibLogin(t *testing.T) {
	t.Parallel()
	python, err := exec.LookPath("python3")
	if err != nil {
		testserver.RequireService(t, "python3", err)
	}
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, sink := submissionServer(t, b, nil)
		host, port, _ := strings.Cut(ts.SubmissionAddr(), ":")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, python, "-c", smtplibScript, host, port, ts.LiveKey)
		cmd.Stdin = strings.NewReader(strings.ReplaceAll(submittedMessage("orders@shop.example"), "\r\n", "\n"))
		out, err := cmd.CombinedOutput()
		testserver.Must(t, err == nil, "smtplib: %v\n%s", err, out)
		m := queuedReply.FindStringSubmatch(strings.TrimSpace(string(out)))
		testserver.Must(t, m != nil, "smtplib saw %q, want 250 2.0.0 queued id=<uuid>", out)
		_, err = sink.WaitForMessages(3, 10*time.Second)
		testserver.Must(t, err == nil, "relay: %v", err)
		verifyDKIM(t, ts, sink.Messages()[0].Data)
		e := waitStatus(t, ts, ts.LiveKey, m[1], "delivered")
		testserver.Must(t, e.APIKey != nil, "no apiKey on %+v", e)
	})
}

// TestSubmissionImplicitTLSAndMetrics (D74): the implicit TLS listener
// (CARTEIRO_SUBMISSIONS_ADDR) accepts a message from its first byte over
// TLS, and /metrics counts the sessions, AUTH failures and results.
func TestSubmissionImplicitTLSAndMetrics(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, _ := submissionServer(t, b, map[string]string{"CARTEIRO_SUBMISSIONS_ADDR": "127.0.0.1:0"})
		testserver.Must(t, ts.SubmissionsAddr() != "", "implicit TLS listener not running")
		dial := func() *smtp.Client {
			conn, err := tls.Dial("tcp", ts.SubmissionsAddr(), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // own test server
			testserver.Must(t, err == nil, "TLS dial: %v", err)
			c, err := smtp.NewClient(conn, "127.0.0.1")
			testserver.Must(t, err == nil, "greeting: %v", err)
			t.Cleanup(func() { _ = c.Close() })
			return c
		}
		// net/smtp quits after a refused AUTH, hence two connections.
		testserver.Must(t, dial().Auth(smtp.PlainAuth("", "u", "re_live_wrong", "127.0.0.1")) != nil, "a wrong key was accepted")
		c := dial()
		testserver.Must(t, c.Auth(smtp.PlainAuth("", "u", ts.LiveKey, "127.0.0.1")) == nil, "AUTH over implicit TLS refused")
		reply := transact(t, c, "orders@shop.example", []string{"ana@customer.example"},
			plainMessage("orders@shop.example", "ana@customer.example"))
		testserver.Must(t, queuedReply.MatchString(reply), "implicit TLS DATA reply %q", reply)
		mustPrefix(t, "unverified", transact(t, c, "x@unverified.example", []string{"ana@customer.example"},
			plainMessage("x@unverified.example", "ana@customer.example")), "550 5.7.1")

		r := ts.Do(t, testserver.Request{Method: "GET", Path: "/metrics"})
		body := string(r.Body)
		for _, want := range []string{"carteiro_submission_connections_total 2", "carteiro_submission_auth_failures_total 1",
			`carteiro_submission_messages_total{result="accepted"} 1`, `carteiro_submission_messages_total{result="sender_not_verified"} 1`} {
			testserver.Must(t, strings.Contains(body, want), "/metrics lacks %q", want)
		}
	})
}

// TestSubmissionAuthFailuresLimitedPerIP: after 5 failed AUTHs in a minute
// from one address (like the dashboard's login) the next attempt is told
// to come back later, 454 4.7.0, instead of 535, even with the right key.
func TestSubmissionAuthFailuresLimitedPerIP(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, _ := submissionServer(t, b, nil)
		var last error
		for range 6 {
			c := submissionClient(t, ts.SubmissionAddr(), true)
			last = c.Auth(smtp.PlainAuth("", "u", "re_live_guess", "127.0.0.1"))
			testserver.Must(t, last != nil, "a guessed key was accepted")
		}
		testserver.Must(t, strings.HasPrefix(last.Error(), "454") && strings.Contains(last.Error(), "4.7.0"), "6th failure: %v", last)
		// While blocked even the right key is refused: otherwise the limit
		// would not slow guessing at all.
		err := submissionClient(t, ts.SubmissionAddr(), true).Auth(smtp.PlainAuth("", "u", ts.LiveKey, "127.0.0.1"))
		testserver.Must(t, err != nil && strings.HasPrefix(err.Error(), "454"), "right key while blocked: %v", err)
	})
}

// TestSubmissionSessionsLimitedPerIP: one address opens at most 30
// sessions at once (then 10 a second); the next EHLO gets 421 4.7.0. The
// test clock does not move, so the bucket does not refill.
func TestSubmissionSessionsLimitedPerIP(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, _ := submissionServer(t, b, nil)
		var err error
		for i := 0; i < 31 && err == nil; i++ {
			c, dialErr := smtp.Dial(ts.SubmissionAddr())
			testserver.Must(t, dialErr == nil, "dial: %v", dialErr)
			t.Cleanup(func() { _ = c.Close() })
			if err = c.Hello("client.example"); err != nil {
				testserver.Must(t, i == 30, "session %d refused: %v", i+1, err)
			}
		}
		testserver.Must(t, err != nil && strings.HasPrefix(err.Error(), "421") && strings.Contains(err.Error(), "4.7.0"), "31st session: %v", err)
	})
}

// TestSubmissionSwaksLoopbackWithoutTLS (D74): a loopback client (here
// swaks, as a local cron job or MTA would) may AUTH without TLS; swaks
// sends with AUTH LOGIN in clear over 127.0.0.1 and the message is queued.
func TestSubmissionSwaksLoopbackWithoutTLS(t *testing.T) {
	t.Parallel()
	swaks, err := exec.LookPath("swaks")
	if err != nil {
		testserver.RequireService(t, "swaks", err)
	}
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, sink := submissionServer(t, b, nil)
		host, port, _ := strings.Cut(ts.SubmissionAddr(), ":")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, swaks, "--server", host, "--port", port, "--helo", "cron.example",
			"--auth", "LOGIN", "--auth-user", "cron", "--auth-password", ts.LiveKey,
			"--from", "orders@shop.example", "--to", "ana@customer.example",
			"--header", "Subject: nightly report", "--header", "X-Carteiro-Tags: job=nightly",
			"--body", "all good").CombinedOutput()
		testserver.Must(t, err == nil, "swaks: %v\n%s", err, out)
		m := regexp.MustCompile(`<-\s+250 2\.0\.0 queued id=([0-9a-f-]{36})`).FindStringSubmatch(string(out))
		testserver.Must(t, m != nil, "swaks saw no queued reply:\n%s", out)
		testserver.Must(t, regexp.MustCompile(`<-\s+235 `).MatchString(string(out)), "AUTH not accepted:\n%s", out)
		_, err = sink.WaitForMessages(1, 10*time.Second)
		testserver.Must(t, err == nil, "relay: %v", err)
		e := waitStatus(t, ts, ts.LiveKey, m[1], "delivered")
		testserver.Must(t, len(e.Tags) == 1 && e.Tags[0].Value == "nightly", "tags %+v", e.Tags)
	})
}

// TestSubmissionSTARTTLSCountsOneConnection: the EHLO after STARTTLS
// starts a second go-smtp session on the same connection; it is not a
// second connection for the per-IP limit or the metric.
func TestSubmissionSTARTTLSCountsOneConnection(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, _ := submissionServer(t, b, nil)
		c := submissionClient(t, ts.SubmissionAddr(), true)
		testserver.Must(t, c.Noop() == nil, "NOOP after STARTTLS")
		r := ts.Do(t, testserver.Request{Method: "GET", Path: "/metrics"})
		testserver.Must(t, strings.Contains(string(r.Body), "carteiro_submission_connections_total 1\n"), "one STARTTLS connection counted as more:\n%s",
			grepLines(string(r.Body), "carteiro_submission_connections_total"))
	})
}
