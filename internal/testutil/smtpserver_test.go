package testutil

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	netsmtp "net/smtp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

const testBody = "From: a@example.com\r\nSubject: hi\r\n\r\nline one\r\n.starts with a dot\r\n"

// transaction is one delivery attempt by a real go-smtp client.
type transaction struct {
	from     string
	to       []string
	body     string
	mailOpts *smtp.MailOptions
	rcptOpts *smtp.RcptOptions
	tls      *tls.Config // STARTTLS with this config when set
	auth     sasl.Client
	// submissionTimeout bounds the wait for the reply after the final dot.
	submissionTimeout time.Duration
}

// send runs the transaction and returns the first error (or nil) plus the
// final DATA reply text.
func (tx transaction) send(t *testing.T, addr string) (string, error) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	client := smtp.NewClient(conn)
	if tx.tls != nil {
		// go-smtp's client upgrades only while connecting; it says EHLO
		// as "localhost" then.
		client, err = smtp.NewClientStartTLS(conn, tx.tls)
		if err != nil {
			return "", err
		}
	}
	defer client.Close()
	client.CommandTimeout = 2 * time.Second
	client.SubmissionTimeout = 2 * time.Second
	if tx.submissionTimeout > 0 {
		client.SubmissionTimeout = tx.submissionTimeout
	}
	if tx.tls == nil {
		if err := client.Hello("client.test"); err != nil {
			return "", err
		}
	}
	if tx.auth != nil {
		if err := client.Auth(tx.auth); err != nil {
			return "", err
		}
	}
	if err := client.Mail(tx.from, tx.mailOpts); err != nil {
		return "", err
	}
	accepted := 0
	var rcptErr error
	for _, to := range tx.to {
		if err := client.Rcpt(to, tx.rcptOpts); err != nil {
			rcptErr = err
			continue
		}
		accepted++
	}
	if accepted == 0 {
		return "", rcptErr
	}
	w, err := client.Data()
	if err != nil {
		return "", err
	}
	if _, err := w.Write([]byte(tx.body)); err != nil {
		return "", err
	}
	resp, err := w.CloseWithResponse()
	if err != nil {
		return "", err
	}
	_ = client.Quit()
	return resp.StatusText, rcptErr
}

func mustSMTPError(t *testing.T, err error) *smtp.SMTPError {
	t.Helper()
	var smtpErr *smtp.SMTPError
	if !errors.As(err, &smtpErr) {
		t.Fatalf("err = %v (%T), want *smtp.SMTPError", err, err)
	}
	return smtpErr
}

func TestSMTPServerRecordsAcceptedMessage(t *testing.T) {
	t.Parallel()
	s := NewSMTPServer(t)
	if s.Host() != "127.0.0.1" || s.Port() == 0 || !strings.HasSuffix(s.Addr(), ":"+strconv.Itoa(s.Port())) {
		t.Fatalf("Addr %q Host %q Port %d are inconsistent", s.Addr(), s.Host(), s.Port())
	}

	_, err := transaction{
		from:     "bounce@example.com",
		to:       []string{"Ana@Example.org", "bia@example.org"},
		body:     testBody,
		mailOpts: &smtp.MailOptions{Return: smtp.DSNReturnHeaders, EnvelopeID: "env-123", Size: int64(len(testBody))},
		rcptOpts: &smtp.RcptOptions{Notify: []smtp.DSNNotify{smtp.DSNNotifySuccess, smtp.DSNNotifyFailure}},
	}.send(t, s.Addr())
	if err != nil {
		t.Fatalf("send: %v", err)
	}

	msgs, err := s.WaitForMessages(1, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	m := msgs[0]
	if m.From != "bounce@example.com" || !slices.Equal(m.To, []string{"Ana@Example.org", "bia@example.org"}) {
		t.Errorf("envelope = %q -> %q", m.From, m.To)
	}
	if string(m.Data) != testBody {
		t.Errorf("Data = %q, want the exact body with dot-stuffing undone", m.Data)
	}
	wantOpts := MailOptions{Size: int64(len(testBody)), Body: "8BITMIME", Return: "HDRS", EnvelopeID: "env-123"}
	if m.MailOptions != wantOpts {
		t.Errorf("MailOptions = %+v, want %+v", m.MailOptions, wantOpts)
	}
	if len(m.Rcpts) != 2 || !slices.Equal(m.Rcpts[1].Notify, []string{"SUCCESS", "FAILURE"}) || m.Rcpts[1].Address != "bia@example.org" {
		t.Errorf("Rcpts = %+v, want NOTIFY=SUCCESS,FAILURE per recipient", m.Rcpts)
	}
	if m.TLS || m.AuthUser != "" || m.Helo != "client.test" {
		t.Errorf("TLS %v AuthUser %q Helo %q, want plain, anonymous, client.test", m.TLS, m.AuthUser, m.Helo)
	}
	if time.Since(m.ReceivedAt) > time.Minute || m.ReceivedAt.IsZero() {
		t.Errorf("ReceivedAt = %v", m.ReceivedAt)
	}
	if s.Connections() != 1 || s.Attempts("ANA@example.org") != 1 || s.Attempts("nobody@example.org") != 0 {
		t.Errorf("Connections %d, Attempts(ana) %d", s.Connections(), s.Attempts("ana@example.org"))
	}
}

func TestSMTPServerWithStandardLibraryClient(t *testing.T) {
	t.Parallel()
	s := NewSMTPServer(t)
	body := "Subject: std\r\n\r\nhello\r\n"
	if err := netsmtp.SendMail(s.Addr(), nil, "a@example.com", []string{"b@example.com"}, []byte(body)); err != nil {
		t.Fatalf("net/smtp SendMail: %v", err)
	}
	msgs := s.Messages()
	if len(msgs) != 1 || string(msgs[0].Data) != body {
		t.Fatalf("messages = %+v, want the one sent", msgs)
	}
}

func TestSMTPServerSMTPUTF8(t *testing.T) {
	t.Parallel()
	s := NewSMTPServer(t)
	_, err := transaction{
		from:     "remetente@exemplo.com.br",
		to:       []string{"joão@exemplo.com.br"},
		body:     "Subject: olá\r\n\r\nção\r\n",
		mailOpts: &smtp.MailOptions{UTF8: true},
	}.send(t, s.Addr())
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	m := s.Messages()[0]
	if !m.MailOptions.UTF8 || m.To[0] != "joão@exemplo.com.br" {
		t.Fatalf("UTF8 %v To %q", m.MailOptions.UTF8, m.To)
	}
}

func TestSMTPServerScriptedTempFailureThenSuccess(t *testing.T) {
	t.Parallel()
	s := NewSMTPServer(t)
	s.Script("Ana@Example.org", Reply{Stage: StageRcpt, Code: 452, Enhanced: "4.2.2", Message: "mailbox full"})
	tx := transaction{from: "a@example.com", to: []string{"ana@example.org"}, body: testBody}

	_, err := tx.send(t, s.Addr())
	smtpErr := mustSMTPError(t, err)
	if smtpErr.Code != 452 || smtpErr.EnhancedCode != (smtp.EnhancedCode{4, 2, 2}) || !strings.Contains(smtpErr.Message, "mailbox full") {
		t.Fatalf("first attempt: %+v, want 452 4.2.2 mailbox full", smtpErr)
	}
	if !smtpErr.Temporary() {
		t.Error("452 is not seen as temporary")
	}
	if n := len(s.Messages()); n != 0 {
		t.Fatalf("%d messages after a refused attempt, want 0", n)
	}

	if _, err := tx.send(t, s.Addr()); err != nil {
		t.Fatalf("second attempt: %v, want accepted once the script is used up", err)
	}
	if n := len(s.Messages()); n != 1 {
		t.Fatalf("%d messages, want 1", n)
	}
	if got := s.Attempts("ana@example.org"); got != 2 {
		t.Fatalf("Attempts = %d, want 2", got)
	}
	if got := s.Connections(); got != 2 {
		t.Fatalf("Connections = %d, want 2", got)
	}
}

func TestSMTPServerScriptedPermanentFailureAtData(t *testing.T) {
	t.Parallel()
	s := NewSMTPServer(t)
	s.Script("ana@example.org", Reply{Stage: StageData, Code: 550, Enhanced: "5.7.1", Message: "rejected by policy"})

	_, err := transaction{from: "a@example.com", to: []string{"ana@example.org"}, body: testBody}.send(t, s.Addr())
	smtpErr := mustSMTPError(t, err)
	if smtpErr.Code != 550 || smtpErr.EnhancedCode != (smtp.EnhancedCode{5, 7, 1}) || smtpErr.Message != "rejected by policy" {
		t.Fatalf("got %+v, want 550 5.7.1 rejected by policy", smtpErr)
	}
	if n := len(s.Messages()); n != 0 {
		t.Fatalf("%d messages after 550 at DATA, want 0", n)
	}
}

func TestSMTPServerScriptedAcceptTextAtData(t *testing.T) {
	t.Parallel()
	s := NewSMTPServer(t)
	s.Script("ana@example.org", Reply{Stage: StageData, Code: 250, Enhanced: "2.0.0", Message: "queued as ABC123"})

	text, err := transaction{from: "a@example.com", to: []string{"ana@example.org"}, body: testBody}.send(t, s.Addr())
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	if !strings.Contains(text, "queued as ABC123") {
		t.Fatalf("DATA reply %q, want the scripted text", text)
	}
	if n := len(s.Messages()); n != 1 {
		t.Fatalf("%d messages, want 1 (2xx accepts)", n)
	}
}

func TestSMTPServerMixedRecipients(t *testing.T) {
	t.Parallel()
	s := NewSMTPServer(t)
	s.Script("gone@example.org", Reply{Stage: StageRcpt, Code: 550, Enhanced: "5.1.1", Message: "no such user"})

	_, err := transaction{from: "a@example.com", to: []string{"ana@example.org", "gone@example.org"}, body: testBody}.send(t, s.Addr())
	if smtpErr := mustSMTPError(t, err); smtpErr.EnhancedCode != (smtp.EnhancedCode{5, 1, 1}) {
		t.Fatalf("refused recipient: %+v, want 5.1.1", smtpErr)
	}
	msgs := s.Messages()
	if len(msgs) != 1 || !slices.Equal(msgs[0].To, []string{"ana@example.org"}) {
		t.Fatalf("messages = %+v, want one to the accepted recipient only", msgs)
	}
}

func TestSMTPServerFirstDataReplyDecides(t *testing.T) {
	t.Parallel()
	s := NewSMTPServer(t)
	s.Script("b@example.org", Reply{Stage: StageData, Code: 451, Enhanced: "4.3.0", Message: "b first"})
	s.Script("c@example.org", Reply{Stage: StageData, Code: 554, Enhanced: "5.6.0", Message: "c second"})

	_, err := transaction{from: "a@example.com", to: []string{"a@example.org", "b@example.org", "c@example.org"}, body: testBody}.send(t, s.Addr())
	if smtpErr := mustSMTPError(t, err); smtpErr.Code != 451 || smtpErr.Message != "b first" {
		t.Fatalf("got %+v, want the reply of b, the first scripted recipient", smtpErr)
	}
}

func TestSMTPServerScriptAllAppliesToEachRecipient(t *testing.T) {
	t.Parallel()
	s := NewSMTPServer(t)
	s.ScriptAll(Reply{Stage: StageRcpt, Code: 421, Enhanced: "4.4.5", Message: "busy"})
	s.Script("vip@example.org") // an empty script: always accepted

	for _, rcpt := range []string{"x@example.org", "y@example.org"} {
		_, err := transaction{from: "a@example.com", to: []string{rcpt}, body: testBody}.send(t, s.Addr())
		if smtpErr := mustSMTPError(t, err); smtpErr.Code != 421 {
			t.Fatalf("%s first attempt: %+v, want 421", rcpt, smtpErr)
		}
		if _, err := (transaction{from: "a@example.com", to: []string{rcpt}, body: testBody}).send(t, s.Addr()); err != nil {
			t.Fatalf("%s second attempt: %v", rcpt, err)
		}
	}
	if _, err := (transaction{from: "a@example.com", to: []string{"vip@example.org"}, body: testBody}).send(t, s.Addr()); err != nil {
		t.Fatalf("own script overrides ScriptAll: %v", err)
	}
	if n := len(s.Messages()); n != 3 {
		t.Fatalf("%d messages, want 3", n)
	}
}

func TestSMTPServerScriptRejectsImpossibleReplies(t *testing.T) {
	t.Parallel()
	s := NewSMTPServer(t)
	for _, r := range []Reply{
		{Stage: StageMail, Code: 451},
		{Stage: StageRcpt, Code: 354},
		{Stage: StageRcpt, Code: 451, Enhanced: "5.1.1"},
		{Stage: StageData, Code: 550, Enhanced: "5.x.1"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Script(%+v) did not panic", r)
				}
			}()
			s.Script("a@example.org", r)
		}()
	}
}

func TestSMTPServerStallAtDataMakesClientTimeOut(t *testing.T) {
	t.Parallel()
	s := NewSMTPServer(t, StallAfter(StageData, 600*time.Millisecond))

	_, err := transaction{from: "a@example.com", to: []string{"ana@example.org"}, body: testBody, submissionTimeout: 100 * time.Millisecond}.send(t, s.Addr())
	var netErr net.Error
	if !errors.As(err, &netErr) || !netErr.Timeout() {
		// Only a client timeout proves the server stayed silent past 100ms.
		t.Fatalf("err = %v, want a client timeout", err)
	}
	// A slow server still delivers: the message appears when the stall ends.
	if _, err := s.WaitForMessages(1, 3*time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestSMTPServerStallAtRcpt(t *testing.T) {
	t.Parallel()
	s := NewSMTPServer(t)
	s.SetStall(StageRcpt, 2*time.Second)

	conn, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := smtp.NewClient(conn)
	client.CommandTimeout = 150 * time.Millisecond
	if err := client.Mail("a@example.com", nil); err != nil {
		t.Fatalf("MAIL: %v", err)
	}
	err = client.Rcpt("b@example.org", nil)
	var netErr net.Error
	if !errors.As(err, &netErr) || !netErr.Timeout() {
		t.Fatalf("RCPT err = %v, want a timeout", err)
	}

	s.SetStall(StageRcpt, 0)
	if _, err := (transaction{from: "a@example.com", to: []string{"b@example.org"}, body: testBody}).send(t, s.Addr()); err != nil {
		t.Fatalf("after clearing the stall: %v", err)
	}
}

func TestSMTPServerStallAtConnect(t *testing.T) {
	t.Parallel()
	s := NewSMTPServer(t, StallAfter(StageConnect, 2*time.Second))

	conn, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(150 * time.Millisecond))
	_, err = bufio.NewReader(conn).ReadString('\n')
	var netErr net.Error
	if !errors.As(err, &netErr) || !netErr.Timeout() {
		t.Fatalf("reading the greeting: %v, want a timeout", err)
	}
	// Cleanup must not wait for the 2s stall: the test's own timing shows it.
}

func TestSMTPServerDropDuringData(t *testing.T) {
	t.Parallel()
	s := NewSMTPServer(t, DropDuringData())
	body := testBody + strings.Repeat("filler line to make the body longer than the drop point\r\n", 50)

	_, err := transaction{from: "a@example.com", to: []string{"ana@example.org"}, body: body}.send(t, s.Addr())
	if err == nil {
		t.Fatal("send succeeded, want an error from the dropped connection")
	}
	var smtpErr *smtp.SMTPError
	if errors.As(err, &smtpErr) {
		t.Fatalf("got SMTP reply %+v, want the connection to drop without a reply", smtpErr)
	}
	if n := len(s.Messages()); n != 0 {
		t.Fatalf("%d messages after a drop, want 0", n)
	}

	s.SetDropDuringData(false)
	if _, err := (transaction{from: "a@example.com", to: []string{"ana@example.org"}, body: body}).send(t, s.Addr()); err != nil {
		t.Fatalf("after turning the drop off: %v", err)
	}
	if got := s.Attempts("ana@example.org"); got != 2 {
		t.Fatalf("Attempts = %d, want 2", got)
	}
}

func TestSMTPServerSTARTTLS(t *testing.T) {
	t.Parallel()
	s := NewSMTPServer(t, WithTLS())
	if s.CertPool() == nil {
		t.Fatal("CertPool() = nil with WithTLS")
	}

	_, err := transaction{
		from: "a@example.com", to: []string{"ana@example.org"}, body: testBody,
		tls: &tls.Config{RootCAs: s.CertPool(), ServerName: "127.0.0.1"},
	}.send(t, s.Addr())
	if err != nil {
		t.Fatalf("send over STARTTLS: %v", err)
	}
	if m := s.Messages()[0]; !m.TLS {
		t.Fatal("message not marked TLS")
	}

	_, err = transaction{
		from: "a@example.com", to: []string{"ana@example.org"}, body: testBody,
		tls: &tls.Config{ServerName: "localhost"}, // system roots only
	}.send(t, s.Addr())
	var unknownAuthority x509.UnknownAuthorityError
	if !errors.As(err, &unknownAuthority) {
		t.Fatalf("untrusting client: err = %v, want an unknown-authority error", err)
	}

	// Plain text stays allowed.
	if _, err := (transaction{from: "a@example.com", to: []string{"ana@example.org"}, body: testBody}).send(t, s.Addr()); err != nil {
		t.Fatalf("plain send: %v", err)
	}
	if msgs := s.Messages(); len(msgs) != 2 || msgs[1].TLS {
		t.Fatalf("messages = %d, second TLS=%v; want 2 with the second in plain text", len(msgs), msgs[len(msgs)-1].TLS)
	}
}

func TestSMTPServerWithoutTLSHasNoPool(t *testing.T) {
	t.Parallel()
	if NewSMTPServer(t).CertPool() != nil {
		t.Fatal("CertPool() != nil without WithTLS")
	}
}

func TestSMTPServerAuth(t *testing.T) {
	t.Parallel()
	s := NewSMTPServer(t, WithAuth("relay-user", "s3cret"))
	tx := transaction{from: "a@example.com", to: []string{"ana@example.org"}, body: testBody}

	_, err := tx.send(t, s.Addr())
	if smtpErr := mustSMTPError(t, err); smtpErr.Code != 530 {
		t.Fatalf("without AUTH: %+v, want 530", smtpErr)
	}

	tx.auth = sasl.NewPlainClient("", "relay-user", "wrong")
	_, err = tx.send(t, s.Addr())
	if smtpErr := mustSMTPError(t, err); smtpErr.Code != 535 {
		t.Fatalf("wrong password: %+v, want 535", smtpErr)
	}

	tx.auth = sasl.NewPlainClient("", "relay-user", "s3cret")
	if _, err := tx.send(t, s.Addr()); err != nil {
		t.Fatalf("with AUTH: %v", err)
	}
	if msgs := s.Messages(); len(msgs) != 1 || msgs[0].AuthUser != "relay-user" {
		t.Fatalf("messages = %+v, want one by relay-user", msgs)
	}
}

func TestSMTPServerAuthWithStandardLibraryClient(t *testing.T) {
	t.Parallel()
	s := NewSMTPServer(t, WithAuth("u", "p"))
	auth := netsmtp.PlainAuth("", "u", "p", "127.0.0.1")
	if err := netsmtp.SendMail(s.Addr(), auth, "a@example.com", []string{"b@example.com"}, []byte(testBody)); err != nil {
		t.Fatalf("net/smtp with PlainAuth: %v", err)
	}
	if msgs := s.Messages(); len(msgs) != 1 || msgs[0].AuthUser != "u" {
		t.Fatalf("messages = %+v", msgs)
	}
}

func TestSMTPServerMaxMessageBytes(t *testing.T) {
	t.Parallel()
	s := NewSMTPServer(t, WithMaxMessageBytes(200))
	_, err := transaction{from: "a@example.com", to: []string{"ana@example.org"}, body: testBody + strings.Repeat("x", 300) + "\r\n"}.send(t, s.Addr())
	if smtpErr := mustSMTPError(t, err); smtpErr.Code != 552 {
		t.Fatalf("oversized: %+v, want 552", smtpErr)
	}
	if n := len(s.Messages()); n != 0 {
		t.Fatalf("%d messages, want 0", n)
	}
}

func TestSMTPServerResetRestoresCreatedState(t *testing.T) {
	t.Parallel()
	s := NewSMTPServer(t, DropDuringData())
	s.SetDropDuringData(false)
	s.Script("ana@example.org", Reply{Stage: StageRcpt, Code: 450})
	_, _ = transaction{from: "a@example.com", to: []string{"ana@example.org"}, body: testBody}.send(t, s.Addr())
	_, _ = transaction{from: "a@example.com", to: []string{"ana@example.org"}, body: testBody}.send(t, s.Addr())
	if len(s.Messages()) != 1 {
		t.Fatalf("setup: %d messages, want 1", len(s.Messages()))
	}

	s.Reset()
	if len(s.Messages()) != 0 || s.Connections() != 0 || s.Attempts("ana@example.org") != 0 {
		t.Fatal("Reset kept messages or counters")
	}
	// The DropDuringData option is back in force.
	if _, err := (transaction{from: "a@example.com", to: []string{"ana@example.org"}, body: testBody}).send(t, s.Addr()); err == nil {
		t.Fatal("send succeeded; Reset should restore DropDuringData from the options")
	}
}

func TestSMTPServerWaitForMessagesTimesOut(t *testing.T) {
	t.Parallel()
	s := NewSMTPServer(t)
	start := time.Now()
	msgs, err := s.WaitForMessages(1, 50*time.Millisecond)
	if err == nil || len(msgs) != 0 {
		t.Fatalf("WaitForMessages = %d msgs, %v; want a timeout error", len(msgs), err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("WaitForMessages overran its timeout")
	}
}

func TestSMTPServerWaitForMessagesWakesUp(t *testing.T) {
	t.Parallel()
	s := NewSMTPServer(t)
	go func() {
		time.Sleep(50 * time.Millisecond)
		_ = netsmtp.SendMail(s.Addr(), nil, "a@example.com", []string{"b@example.com"}, []byte(testBody))
	}()
	if _, err := s.WaitForMessages(1, 3*time.Second); err != nil {
		t.Fatal(err)
	}
}
