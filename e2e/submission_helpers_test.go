package e2e

import (
	"crypto/tls"
	"net/smtp"
	"strconv"
	"testing"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// submissionServer is relayServer (a verified shop.example relaying to an
// in-process SMTP server) with the SMTP submission listener of D74 on.
func submissionServer(t *testing.T, b testserver.Backend, env map[string]string) (*testserver.TestServer, *testutil.SMTPServer) {
	t.Helper()
	settings := map[string]string{"CARTEIRO_SUBMISSION_ADDR": "127.0.0.1:0"}
	for k, v := range env {
		settings[k] = v
	}
	ts, sink, _ := relayServer(t, b, settings)
	testserver.Must(t, ts.SubmissionAddr() != "", "submission listener not running")
	return ts, sink
}

// submissionClient dials the STARTTLS listener, says EHLO and, when
// startTLS, upgrades the connection (the certificate is the self-signed
// one kept in the database, hence no verification).
func submissionClient(t *testing.T, addr string, startTLS bool) *smtp.Client {
	t.Helper()
	c, err := smtp.Dial(addr)
	testserver.Must(t, err == nil, "dial submission: %v", err)
	t.Cleanup(func() { _ = c.Close() })
	testserver.Must(t, c.Hello("client.example") == nil, "EHLO")
	if startTLS {
		err = c.StartTLS(&tls.Config{InsecureSkipVerify: true}) //nolint:gosec // the test trusts its own server
		testserver.Must(t, err == nil, "STARTTLS: %v", err)
	}
	return c
}

// authedClient is a client past STARTTLS and AUTH PLAIN with key.
func authedClient(t *testing.T, ts *testserver.TestServer, key string) *smtp.Client {
	t.Helper()
	c := submissionClient(t, ts.SubmissionAddr(), true)
	err := c.Auth(smtp.PlainAuth("", "any-user", key, "127.0.0.1"))
	testserver.Must(t, err == nil, "AUTH PLAIN: %v", err)
	return c
}

// transact runs MAIL, RCPT and DATA on c and returns the reply to the
// first command refused, or the final reply to DATA ("250 2.0.0 queued
// id=..."), as "code text".
func transact(t *testing.T, c *smtp.Client, from string, to []string, msg string) string {
	t.Helper()
	if r := command(t, c, "MAIL FROM:<"+from+">", 250); r != "" {
		return r
	}
	for _, rcpt := range to {
		if r := command(t, c, "RCPT TO:<"+rcpt+">", 250); r != "" {
			return r
		}
	}
	if r := command(t, c, "DATA", 354); r != "" {
		return r
	}
	w := c.Text.DotWriter()
	_, err := w.Write([]byte(msg))
	testserver.Must(t, err == nil, "write DATA: %v", err)
	testserver.Must(t, w.Close() == nil, "end DATA")
	code, text, _ := c.Text.ReadResponse(0)
	return itoa(code) + " " + text
}

// command sends one command; it returns "" when the reply has the wanted
// code, else the reply as "code text".
func command(t *testing.T, c *smtp.Client, cmd string, want int) string {
	t.Helper()
	id, err := c.Text.Cmd("%s", cmd)
	testserver.Must(t, err == nil, "%s: %v", cmd, err)
	c.Text.StartResponse(id)
	defer c.Text.EndResponse(id)
	code, text, _ := c.Text.ReadResponse(0)
	if code == want {
		return ""
	}
	return itoa(code) + " " + text
}

func itoa(n int) string { return strconv.Itoa(n) }
