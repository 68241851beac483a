package inbound

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/carteiro/carteiro/internal/testutil"
)

// dsn is a small delivery status notification with 8-bit text and a line
// starting with a dot, so both dot-stuffing and 8BITMIME are exercised.
const dsn = "From: MAILER-DAEMON@mx.remote.example\r\n" +
	"To: bounces+tok123@bounces.example.com\r\n" +
	"Subject: Undelivered Mail Returned to Sender\r\n" +
	"Content-Type: multipart/report; report-type=delivery-status; boundary=b\r\n" +
	"\r\n" +
	"--b\r\n" +
	"Não foi possível entregar.\r\n" +
	".a line that starts with a dot\r\n" +
	"--b--\r\n"

// D55: mail for the bounce host and for bounces.<registered domain> reaches
// the handler byte for byte, with every accepted recipient, and one log
// line says so.
func TestDeliversAcceptedMessageExactly(t *testing.T) {
	t.Parallel()
	h := newTestHandler()
	logs := &logBuffer{}
	srv := startServer(t, Options{Logger: logs.logger()}, h)
	c := dial(t, srv)

	if err := c.Mail("mailer-daemon@mx.remote.example", nil); err != nil {
		t.Fatalf("MAIL: %v", err)
	}
	for _, rcpt := range []string{"bounces+tok123@bounces.example.com", "bounces+tok456@BOUNCES.Carteiro.localhost."} {
		if err := c.Rcpt(rcpt, nil); err != nil {
			t.Fatalf("RCPT %s: %v", rcpt, err)
		}
	}
	if err := sendData(t, c, []byte(dsn)); err != nil {
		t.Fatalf("end of DATA: %v", err)
	}
	if err := c.Quit(); err != nil {
		t.Fatalf("QUIT: %v", err)
	}

	got := h.Deliveries()
	if len(got) != 1 {
		t.Fatalf("Deliver called %d times, want 1", len(got))
	}
	want := []string{"bounces+tok123@bounces.example.com", "bounces+tok456@bounces.carteiro.localhost"}
	if got[0].From != "mailer-daemon@mx.remote.example" || !slices.Equal(got[0].To, want) {
		t.Fatalf("Deliver got from %q to %q, want %q", got[0].From, got[0].To, want)
	}
	if !bytes.Equal(got[0].Raw, []byte(dsn)) {
		t.Fatalf("Deliver got bytes\n%q\nwant\n%q", got[0].Raw, dsn)
	}
	if asked := h.Asked(); !slices.Equal(asked, []string{customerHost, bounceHost}) {
		t.Fatalf("AcceptsDomain asked %q, want the normalised domains", asked)
	}
	line := logs.String()
	if !strings.Contains(line, `"msg":"inbound message accepted"`) || !strings.Contains(line, `"size":`+strconv.Itoa(len(dsn))) {
		t.Fatalf("no accepted-message log line with the size in:\n%s", line)
	}
}

// D55: a recipient on a domain that is not ours gets 550 5.1.1 at RCPT,
// and an accepted recipient of the same transaction is still delivered.
func TestRefusesForeignRecipientButKeepsTheRest(t *testing.T) {
	t.Parallel()
	h := newTestHandler()
	logs := &logBuffer{}
	srv := startServer(t, Options{Logger: logs.logger()}, h)
	c := dial(t, srv)

	if err := c.Mail("sender@remote.example", nil); err != nil {
		t.Fatalf("MAIL: %v", err)
	}
	wantReply(t, "RCPT of a foreign domain", c.Rcpt("victim@gmail.example", nil), 550, smtp.EnhancedCode{5, 1, 1})
	wantReply(t, "RCPT of an address literal", c.Rcpt("postmaster@[127.0.0.1]", nil), 550, smtp.EnhancedCode{5, 1, 1})
	if err := c.Rcpt("bounces+tok@bounces.example.com", nil); err != nil {
		t.Fatalf("RCPT of our domain after a refusal: %v", err)
	}
	if err := sendData(t, c, []byte(dsn)); err != nil {
		t.Fatalf("end of DATA: %v", err)
	}
	got := h.Deliveries()
	if len(got) != 1 || !slices.Equal(got[0].To, []string{"bounces+tok@bounces.example.com"}) {
		t.Fatalf("deliveries %+v, want one to the accepted recipient only", got)
	}
	if !strings.Contains(logs.String(), `"msg":"inbound SMTP refused"`) ||
		!strings.Contains(logs.String(), `"to":"victim@gmail.example"`) {
		t.Fatalf("refusal not logged:\n%s", logs.String())
	}
}

// Malformed recipient addresses get 501; they never reach the handler.
func TestRefusesMalformedRecipients(t *testing.T) {
	t.Parallel()
	h := newTestHandler()
	srv := startServer(t, Options{}, h)
	c := dial(t, srv)
	if err := c.Mail("", nil); err != nil {
		t.Fatalf("MAIL: %v", err)
	}
	for _, rcpt := range []string{"no-at-sign", "user@", "user@bad..example.com", "user@under_score.example.com", "user@localhost"} {
		err := c.Rcpt(rcpt, nil)
		var smtpErr *smtp.SMTPError
		if !errors.As(err, &smtpErr) || smtpErr.Code != 501 {
			t.Errorf("RCPT %q: got %v, want 501", rcpt, err)
		}
	}
	if asked := h.Asked(); len(asked) != 0 {
		t.Fatalf("handler asked about %q for malformed addresses", asked)
	}
}

// DSNs come from the null sender <> (RFC 5321 4.5.5), with SMTPUTF8 when
// the addresses are internationalised; both must work.
func TestAcceptsNullSenderAndSMTPUTF8(t *testing.T) {
	t.Parallel()
	h := newTestHandler("bounces.xn--exmple-cua.com")
	srv := startServer(t, Options{}, h)
	c := dial(t, srv)
	for _, ext := range []string{"SMTPUTF8", "8BITMIME", "ENHANCEDSTATUSCODES"} {
		if ok, _ := c.Extension(ext); !ok {
			t.Errorf("%s not advertised", ext)
		}
	}
	for _, ext := range []string{"AUTH", "STARTTLS"} {
		if ok, _ := c.Extension(ext); ok {
			t.Errorf("%s advertised; the listener has neither", ext)
		}
	}

	if err := c.Mail("", &smtp.MailOptions{UTF8: true}); err != nil {
		t.Fatalf("MAIL FROM:<> SMTPUTF8: %v", err)
	}
	if err := c.Rcpt("bounces+tøk@bounces.exämple.com", nil); err != nil {
		t.Fatalf("RCPT with a UTF-8 address: %v", err)
	}
	if err := sendData(t, c, []byte(dsn)); err != nil {
		t.Fatalf("end of DATA: %v", err)
	}
	got := h.Deliveries()
	if len(got) != 1 || got[0].From != "" || !slices.Equal(got[0].To, []string{"bounces+tøk@bounces.xn--exmple-cua.com"}) {
		t.Fatalf("deliveries %+v, want one from the null sender to the punycode domain", got)
	}
}

// A message over the cap gets 552 5.3.4 and is not delivered, whether its
// size was declared or not; one of exactly the cap goes through, and the
// connection stays usable after the refusal.
func TestRefusesOversizedMessage(t *testing.T) {
	t.Parallel()
	const limit = 1024
	h := newTestHandler()
	srv := startServer(t, Options{MaxMessageBytes: limit}, h)
	c := dial(t, srv)

	exact := messageOfSize(limit)
	tooBig := messageOfSize(limit + 2)

	wantReply(t, "MAIL with SIZE over the cap", c.Mail("", &smtp.MailOptions{Size: int64(len(tooBig))}),
		552, smtp.EnhancedCode{5, 3, 4})

	mustStart(t, c, "bounces+a@bounces.example.com")
	wantReply(t, "DATA over the cap", sendData(t, c, tooBig), 552, smtp.EnhancedCode{5, 3, 4})
	if n := len(h.Deliveries()); n != 0 {
		t.Fatalf("oversized message delivered (%d calls)", n)
	}

	mustStart(t, c, "bounces+b@bounces.example.com")
	if err := sendData(t, c, exact); err != nil {
		t.Fatalf("message of exactly the cap: %v", err)
	}
	got := h.Deliveries()
	if len(got) != 1 || !bytes.Equal(got[0].Raw, exact) {
		t.Fatalf("want the message of exactly %d bytes delivered, got %d deliveries", limit, len(got))
	}
}

// A handler failure is a temporary refusal (451 4.3.0), so the sending MTA
// keeps the message and retries.
func TestDeliverErrorIsTemporary(t *testing.T) {
	t.Parallel()
	h := newTestHandler()
	h.deliver = func(context.Context) error { return errors.New("database is locked") }
	srv := startServer(t, Options{}, h)
	c := dial(t, srv)
	mustStart(t, c, "bounces+a@bounces.example.com")
	wantReply(t, "end of DATA", sendData(t, c, []byte(dsn)), 451, smtp.EnhancedCode{4, 3, 0})
}

// No more than MaxRecipients are accepted per transaction; the rest get 452.
func TestCapsRecipients(t *testing.T) {
	t.Parallel()
	h := newTestHandler()
	srv := startServer(t, Options{MaxRecipients: 2}, h)
	c := dial(t, srv)
	mustStart(t, c, "a@bounces.example.com")
	if err := c.Rcpt("b@bounces.example.com", nil); err != nil {
		t.Fatalf("second RCPT: %v", err)
	}
	wantReply(t, "third RCPT", c.Rcpt("c@bounces.example.com", nil), 452, smtp.EnhancedCode{4, 5, 3})
	if err := sendData(t, c, []byte(dsn)); err != nil {
		t.Fatalf("end of DATA: %v", err)
	}
	if got := h.Deliveries(); len(got) != 1 || len(got[0].To) != 2 {
		t.Fatalf("deliveries %+v, want one with two recipients", got)
	}
}

// Past the burst a client gets 421 4.7.0 at MAIL until its bucket refills;
// other clients are not affected.
func TestRateLimitsPerClientIP(t *testing.T) {
	t.Parallel()
	clock := testutil.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	h := newTestHandler()
	srv := startServer(t, Options{RatePerIP: 1, BurstPerIP: 3, Clock: clock}, h)
	c := dial(t, srv)

	for i := range 3 {
		if err := c.Mail("", nil); err != nil {
			t.Fatalf("MAIL %d within the burst: %v", i+1, err)
		}
		if err := c.Reset(); err != nil {
			t.Fatalf("RSET: %v", err)
		}
	}
	wantReply(t, "MAIL over the burst", c.Mail("", nil), 421, smtp.EnhancedCode{4, 7, 0})

	other := dialFrom(t, srv, "127.0.0.2")
	if err := other.Mail("", nil); err != nil {
		t.Fatalf("MAIL from another client: %v", err)
	}

	clock.Advance(time.Second)
	if err := c.Mail("", nil); err != nil {
		t.Fatalf("MAIL after a second's refill: %v", err)
	}
}

// A refused MAIL ends the transaction before it: the recipients accepted
// under the earlier MAIL are not delivered under the refused one.
func TestRefusedMailLeavesNoTransaction(t *testing.T) {
	t.Parallel()
	clock := testutil.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	h := newTestHandler()
	srv := startServer(t, Options{RatePerIP: 1, BurstPerIP: 1, Clock: clock}, h)
	c := dial(t, srv)
	mustStart(t, c, "bounces+a@bounces.example.com")
	wantReply(t, "second MAIL over the rate", c.Mail("other@remote.example", nil), 421, smtp.EnhancedCode{4, 7, 0})
	wantReply(t, "RCPT after the refused MAIL", c.Rcpt("bounces+b@bounces.example.com", nil), 503, smtp.EnhancedCode{5, 5, 1})
	wantReply(t, "DATA after the refused MAIL", sendData(t, c, []byte(dsn)), 503, smtp.EnhancedCode{5, 5, 1})
	if n := len(h.Deliveries()); n != 0 {
		t.Fatalf("%d deliveries, want none", n)
	}
}

// After Close nothing is accepted: the port refuses connections and an
// open session is cut.
func TestCloseStopsServing(t *testing.T) {
	t.Parallel()
	h := newTestHandler()
	srv := startServer(t, Options{}, h)
	c := dial(t, srv)
	if err := c.Noop(); err != nil {
		t.Fatalf("NOOP before Close: %v", err)
	}
	if err := srv.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := c.Mail("", nil); err == nil {
		t.Fatalf("MAIL on a session open before Close succeeded")
	}
	if again, err := smtp.Dial(srv.Addr()); err == nil {
		again.Close()
		t.Fatalf("new connection accepted after Close")
	}
	if err := srv.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// Close cancels the context of a Deliver in flight and returns only once
// that call has returned; the client, which got no 250, will retry.
func TestCloseWaitsForDeliverInFlight(t *testing.T) {
	t.Parallel()
	h := newTestHandler()
	started := make(chan struct{})
	returned := make(chan struct{})
	h.deliver = func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		time.Sleep(20 * time.Millisecond) // a handler finishing its rollback
		close(returned)
		return ctx.Err()
	}
	srv := startServer(t, Options{}, h)
	c := dial(t, srv)
	mustStart(t, c, "bounces+a@bounces.example.com")
	dataErr := make(chan error, 1)
	go func() {
		w, err := c.Data()
		if err == nil {
			_, _ = w.Write([]byte(dsn))
			err = w.Close()
		}
		dataErr <- err
	}()
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("Deliver not called")
	}
	if err := srv.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case <-returned:
	default:
		t.Fatal("Close returned while Deliver was still running")
	}
	if err := <-dataErr; err == nil {
		t.Fatal("client got a success reply for a message whose delivery was cut")
	}
}

// Listen reports a port already in use instead of failing later.
func TestListenReportsBindError(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Options{}, newTestHandler())
	if _, err := Listen(Options{Addr: srv.Addr()}, newTestHandler()); err == nil {
		t.Fatal("second Listen on the same address succeeded")
	}
}

// mustStart opens a transaction from the null sender to rcpt.
func mustStart(t *testing.T, c *smtp.Client, rcpt string) {
	t.Helper()
	if err := c.Mail("", nil); err != nil {
		t.Fatalf("MAIL: %v", err)
	}
	if err := c.Rcpt(rcpt, nil); err != nil {
		t.Fatalf("RCPT %s: %v", rcpt, err)
	}
}

// messageOfSize builds a message of exactly n bytes (n >= 24) with CRLF
// line endings, as the server will count it.
func messageOfSize(n int) []byte {
	var b bytes.Buffer
	b.WriteString("Subject: size test\r\n\r\n")
	for n-b.Len() > 80 {
		b.WriteString(strings.Repeat("x", 78) + "\r\n")
	}
	b.WriteString(strings.Repeat("x", n-b.Len()-2) + "\r\n")
	return b.Bytes()
}
