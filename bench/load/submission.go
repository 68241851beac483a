package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/smtp"
	"net/textproto"
	"strconv"
	"strings"
)

// messagesPerSession is how many messages one SMTP session carries (RSET
// and MAIL again between them) before it says QUIT and a new one is
// dialed, so the run pays for connections, STARTTLS and AUTH too, as an
// MTA reusing its connections would. It must keep the new sessions from
// the one benchmark address under the server's per-IP rule (D74: 10 a
// second, burst 30): at 5,000 messages/s, 1,000 per session is 5 a second.
const messagesPerSession = 1000

// submissionBody is the ~5 KB text body of every SMTP benchmark message.
var submissionBody = strings.Repeat("Benchmark message body sent over SMTP submission to Carteiro.\r\n", 80)

// smtpSession is one authenticated submission connection and how many
// messages it has carried.
type smtpSession struct {
	c    *smtp.Client
	sent int
}

// smtpSender submits one 5 KB message per call over STARTTLS and AUTH
// PLAIN with the live key (D74). Sessions are kept in a pool of one per
// client, so each client reuses its own connection. With pipelining the
// envelope goes in one write, as MTAs send it (the server offers
// PIPELINING); without it each command waits for its reply.
func smtpSender(addr, key string, clients int, pipelining bool) sender {
	pool := make(chan *smtpSession, clients)
	return func(ctx context.Context, n int64) outcome {
		var s *smtpSession
		select {
		case s = <-pool:
		default:
		}
		if s == nil {
			c, err := dialSubmission(addr, key)
			if err != nil {
				return outcome{status: "transport"}
			}
			s = &smtpSession{c: c}
		}
		var o outcome
		switch {
		case pipelining:
			o = submitPipelined(s.c, n, s.sent > 0)
		case s.sent > 0 && s.c.Reset() != nil:
			o = outcome{status: "transport"}
		default:
			o = submitOne(s.c, n)
		}
		s.sent++
		if o.status == "transport" {
			_ = s.c.Close()
			return o
		}
		if s.sent >= messagesPerSession {
			_ = s.c.Quit()
			return o
		}
		pool <- s
		return o
	}
}

// dialSubmission connects, upgrades with STARTTLS (the server's
// certificate is self-signed) and authenticates.
func dialSubmission(addr, key string) (*smtp.Client, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	c, err := smtp.NewClient(conn, "127.0.0.1")
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	err = c.Hello("bench.client.example")
	if err == nil {
		err = c.StartTLS(&tls.Config{InsecureSkipVerify: true}) //nolint:gosec // the benchmark's own server
	}
	if err == nil {
		err = c.Auth(smtp.PlainAuth("", "bench", key, "127.0.0.1"))
	}
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

// submitOne runs MAIL, RCPT and DATA for benchmark message n; the status
// is the reply code of the first command refused, or 250.
func submitOne(c *smtp.Client, n int64) outcome {
	num := strconv.FormatInt(n, 10)
	if err := c.Mail("bench@" + sendingDomain); err != nil {
		return refused(err)
	}
	if err := c.Rcpt("user" + num + "@sink.example"); err != nil {
		return refused(err)
	}
	w, err := c.Data()
	if err != nil {
		return refused(err)
	}
	return finishData(w, num, func() error { return nil })
}

// submitPipelined sends RSET (on a reused session), MAIL, RCPT and DATA in
// one write and then reads their replies in order (RFC 2920), then the
// message and its final dot.
func submitPipelined(c *smtp.Client, n int64, reset bool) outcome {
	num := strconv.FormatInt(n, 10)
	t := c.Text
	if reset {
		_, _ = t.W.WriteString("RSET\r\n")
	}
	fmt.Fprintf(t.W, "MAIL FROM:<bench@%s>\r\nRCPT TO:<user%s@sink.example>\r\nDATA\r\n", sendingDomain, num)
	if err := t.W.Flush(); err != nil {
		return outcome{status: "transport"}
	}
	var first error // the first refusal; every reply is read to stay in step
	replies := []int{250, 250, 250, 354}
	if !reset {
		replies = replies[1:]
	}
	for _, want := range replies {
		if _, _, err := t.ReadResponse(want); err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return refused(first)
	}
	return finishData(t.DotWriter(), num, func() error {
		_, _, err := t.ReadResponse(250)
		return err
	})
}

// finishData writes benchmark message num to w (a DATA writer), closes it
// and reads the final reply with final (net/smtp's writer reads it in
// Close; a bare DotWriter does not).
func finishData(w io.WriteCloser, num string, final func() error) outcome {
	_, err := fmt.Fprintf(w, "From: Bench <bench@%s>\r\nTo: user%s@sink.example\r\nSubject: Benchmark email %s\r\n\r\n%s",
		sendingDomain, num, num, submissionBody)
	if err != nil {
		return outcome{status: "transport"}
	}
	if err := w.Close(); err != nil {
		return refused(err)
	}
	if err := final(); err != nil {
		return refused(err)
	}
	return outcome{status: "250", accepted: 1}
}

// refused turns an SMTP reply error into its code, anything else into
// "transport".
func refused(err error) outcome {
	if code := replyCode(err); code != "" {
		return outcome{status: code}
	}
	return outcome{status: "transport"}
}

func replyCode(err error) string {
	var te *textproto.Error
	if errors.As(err, &te) {
		return strconv.Itoa(te.Code)
	}
	return ""
}

// freeLoopbackAddr is a 127.0.0.1 port free now, for the submission
// listener (its address is not logged in the line startCarteiro reads).
func freeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a port for submission: %w", err)
	}
	addr := l.Addr().String()
	return addr, l.Close()
}
