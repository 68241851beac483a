package e2e

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

// smallMessage is a short plain message to to.
func smallMessage(to, subject string) []byte {
	return []byte("From: someone@sender.example\r\nTo: " + to + "\r\nSubject: " + subject + "\r\n\r\nhello\r\n")
}

// smtpCode is the reply code in a net/smtp error, "" for nil.
func smtpCode(err error) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	if len(msg) >= 3 {
		return msg[:3]
	}
	return msg
}

// TestInboundRefusals (D75, D55): mail for a domain whose inbound is off,
// for an enabled domain that is not verified, for an unknown domain, and
// a message over CARTEIRO_INBOUND_MAX_SIZE are refused with a 5xx, and
// nothing of them is stored or announced; the listener is no open relay.
func TestInboundRefusals(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		r := newInboundRig(t, b, map[string]string{"CARTEIRO_INBOUND_MAX_SIZE": "100000"})
		addr := r.mxAddr(t, "shop.example")

		quiet := createDomain(t, r.ts, r.ts.LiveKey, "quiet.example")
		publish(r.ts, quiet)
		testserver.Must(t, verify(t, r.ts, r.ts.LiveKey, quiet.ID).Status == "verified", "quiet.example not verified")
		unverified := createDomain(t, r.ts, r.ts.LiveKey, "unverified.example")
		enableInbound(t, r.ts, r.ts.LiveKey, unverified.ID, true)

		for _, to := range []string{"a@quiet.example", "a@unverified.example", "a@nobody.example", "postmaster@elsewhere.test"} {
			err := sendSMTP(addr, "mail.sender.example", "x@sender.example", []string{to}, smallMessage(to, "refused"))
			testserver.Must(t, smtpCode(err) == "550", "%s: %v, want 550", to, err)
		}
		// Turning inbound off refuses at once.
		enableInbound(t, r.ts, r.ts.LiveKey, r.domain.ID, false)
		err := sendSMTP(addr, "mail.sender.example", "x@sender.example", []string{"a@shop.example"}, smallMessage("a@shop.example", "off"))
		testserver.Must(t, smtpCode(err) == "550", "disabled domain: %v, want 550", err)
		enableInbound(t, r.ts, r.ts.LiveKey, r.domain.ID, true)

		big := smallMessage("big@shop.example", "big")
		big = append(big, []byte(strings.Repeat(strings.Repeat("x", 98)+"\r\n", 1100))...)
		err = sendSMTP(addr, "mail.sender.example", "x@sender.example", []string{"big@shop.example"}, big)
		testserver.Must(t, smtpCode(err) == "552", "over the size limit: %v, want 552", err)

		// What was refused is nowhere; what is accepted next is stored.
		err = sendSMTP(addr, "mail.sender.example", "x@sender.example", []string{"ok@shop.example"}, smallMessage("ok@shop.example", "fine"))
		testserver.Must(t, err == nil, "a fine message refused: %v", err)
		waitFor(t, func() bool { return len(r.inboundTo(t, "ok@shop.example")) == 1 })
		testserver.Must(t, len(r.inboundTo(t, "@")) == 1, "refused messages were stored: %v", r.inboundTo(t, "@"))
		hooks := r.receivedHooks(t, 1)
		time.Sleep(300 * time.Millisecond)
		testserver.Must(t, len(hooks) == 1 && len(r.hook.Requests()) == 1, "webhooks for refused mail: %d", len(r.hook.Requests()))
	})
}

// TestInboundFloodIsLimited: one client address gets at most
// CARTEIRO_INBOUND_CONNECTIONS_PER_IP connections (the next is greeted
// with 421) and CARTEIRO_INBOUND_RATE_LIMIT_IP transactions (the next
// MAIL gets 421); slots come back when connections close.
func TestInboundFloodIsLimited(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		r := newInboundRig(t, b, map[string]string{"CARTEIRO_INBOUND_CONNECTIONS_PER_IP": "3", "CARTEIRO_INBOUND_RATE_LIMIT_IP": "1/h,4"})
		addr := r.mxAddr(t, "shop.example")
		greet := func() (net.Conn, string) {
			c, err := net.DialTimeout("tcp", addr, 5*time.Second)
			testserver.Must(t, err == nil, "dial: %v", err)
			_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
			line, _ := bufio.NewReader(c).ReadString('\n')
			return c, line
		}
		var open []net.Conn
		for i := 0; i < 3; i++ {
			c, line := greet()
			testserver.Must(t, strings.HasPrefix(line, "220 "), "connection %d greeted %q", i+1, line)
			open = append(open, c)
		}
		c, line := greet()
		testserver.Must(t, strings.HasPrefix(line, "421 4.7.0"), "fourth connection greeted %q, want 421", line)
		c.Close()
		for _, c := range open {
			c.Close()
		}
		// The slots come back.
		waitFor(t, func() bool { c, line := greet(); c.Close(); return strings.HasPrefix(line, "220 ") })

		// Four transactions pass (the burst), the fifth is limited.
		for i := 0; i < 4; i++ {
			err := sendSMTP(addr, "mail.sender.example", "x@sender.example", []string{"flood@shop.example"}, smallMessage("flood@shop.example", "n"))
			testserver.Must(t, err == nil, "message %d: %v", i+1, err)
		}
		err := sendSMTP(addr, "mail.sender.example", "x@sender.example", []string{"flood@shop.example"}, smallMessage("flood@shop.example", "n"))
		testserver.Must(t, smtpCode(err) == "421", "fifth message: %v, want 421", err)
		testserver.Must(t, len(r.inboundTo(t, "flood@shop.example")) == 4, "stored %d, want 4", len(r.inboundTo(t, "flood@shop.example")))
	})
}

// TestInboundStorageDownAnswers4xx: with PostgreSQL cut off (a TCP proxy;
// the shared server keeps running) a message gets a 4xx, never a 250, and
// is not stored; once the database is back the sender's retry is stored.
func TestInboundStorageDownAnswers4xx(t *testing.T) {
	t.Parallel()
	url, proxy := proxiedPostgres(t)
	r := newInboundRig(t, testserver.Postgres, map[string]string{"CARTEIRO_DATABASE_URL": url})
	addr := r.mxAddr(t, "shop.example")

	proxy.Cut()
	err := sendSMTP(addr, "mail.sender.example", "x@sender.example", []string{"down@shop.example"}, smallMessage("down@shop.example", "while down"))
	proxy.Restore()
	testserver.Must(t, err != nil && strings.HasPrefix(smtpCode(err), "4"), "while the database is down: %v, want a 4xx", err)

	waitFor(t, func() bool {
		return sendSMTP(addr, "mail.sender.example", "x@sender.example", []string{"down@shop.example"}, smallMessage("down@shop.example", "retry")) == nil
	})
	list := r.inboundTo(t, "down@shop.example")
	testserver.Must(t, len(list) == 1 && list[0].Subject == "retry", "stored %+v, want only the retry", list)
}
