package mta

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testutil"
)

func TestScriptedRcptReplies(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                 string
		reply                testutil.Reply
		class                Class
		code                 int
		enhanced, messageHas string
	}{
		{"mailbox full", testutil.Reply{Stage: testutil.StageRcpt, Code: 452, Enhanced: "4.2.2", Message: "mailbox full"}, ClassTemporary, 452, "4.2.2", "mailbox full"},
		{"greylisted", testutil.Reply{Stage: testutil.StageRcpt, Code: 451, Enhanced: "4.7.1", Message: "greylisted, retry later"}, ClassTemporary, 451, "4.7.1", "greylisted"},
		{"unknown user", testutil.Reply{Stage: testutil.StageRcpt, Code: 550, Enhanced: "5.1.1", Message: "no such user"}, ClassPermanent, 550, "5.1.1", "no such user"},
		{"policy block", testutil.Reply{Stage: testutil.StageRcpt, Code: 550, Enhanced: "5.7.1", Message: "rejected by policy"}, ClassBlock, 550, "5.7.1", "policy"},
		{"no enhanced code", testutil.Reply{Stage: testutil.StageRcpt, Code: 554, Message: "go away"}, ClassPermanent, 554, "5.0.0", "go away"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := testutil.NewSMTPServer(t)
			srv.Script("rcpt@example.org", tc.reply)
			relay := newPlainRelay(t, srv, RelayOptions{})
			results := relay.Deliver(testContext(t), Envelope{From: "a@example.com", Recipients: []string{"rcpt@example.org"}}, builtMessage(t))
			r := results[0]
			if r.Class != tc.class || r.Code != tc.code || r.Enhanced != tc.enhanced || !strings.Contains(r.Message, tc.messageHas) {
				t.Errorf("result %+v, want %s %d %s %q", r, tc.class, tc.code, tc.enhanced, tc.messageHas)
			}
			if len(srv.Messages()) != 0 {
				t.Error("a message was accepted without any accepted recipient")
			}
		})
	}
}

func TestMixedRecipients(t *testing.T) {
	t.Parallel()
	srv := testutil.NewSMTPServer(t)
	srv.Script("gone@example.org", testutil.Reply{Stage: testutil.StageRcpt, Code: 550, Enhanced: "5.1.1", Message: "no such user"})
	srv.Script("busy@example.org", testutil.Reply{Stage: testutil.StageRcpt, Code: 451, Enhanced: "4.3.0", Message: "try later"})
	srv.Script("blocked@example.org", testutil.Reply{Stage: testutil.StageRcpt, Code: 550, Enhanced: "5.7.1", Message: "spam"})
	relay := newPlainRelay(t, srv, RelayOptions{})
	env := Envelope{From: "a@example.com", Recipients: []string{"ok1@example.org", "gone@example.org", "busy@example.org", "blocked@example.org", "ok2@example.org"}}
	results := relay.Deliver(testContext(t), env, builtMessage(t))
	assertClasses(t, results, map[string]Class{
		"ok1@example.org": ClassAccepted, "gone@example.org": ClassPermanent, "busy@example.org": ClassTemporary,
		"blocked@example.org": ClassBlock, "ok2@example.org": ClassAccepted,
	})
	for i, r := range results {
		if r.Recipient != env.Recipients[i] {
			t.Errorf("result %d is for %s, want %s (order kept)", i, r.Recipient, env.Recipients[i])
		}
	}
	msgs := srv.Messages()
	if len(msgs) != 1 || strings.Join(msgs[0].To, ",") != "ok1@example.org,ok2@example.org" {
		t.Errorf("server received %+v", msgs)
	}
}

func TestDataReplyAppliesToAcceptedRecipients(t *testing.T) {
	t.Parallel()
	srv := testutil.NewSMTPServer(t)
	srv.Script("a@example.org", testutil.Reply{Stage: testutil.StageData, Code: 554, Enhanced: "5.7.1", Message: "message looks like spam"})
	srv.Script("c@example.org", testutil.Reply{Stage: testutil.StageRcpt, Code: 550, Enhanced: "5.1.1", Message: "no such user"})
	relay := newPlainRelay(t, srv, RelayOptions{})
	results := relay.Deliver(testContext(t), Envelope{From: "s@example.com", Recipients: []string{"a@example.org", "b@example.org", "c@example.org"}}, builtMessage(t))
	assertClasses(t, results, map[string]Class{"a@example.org": ClassBlock, "b@example.org": ClassBlock, "c@example.org": ClassPermanent})
	if results[1].Code != 554 || !strings.Contains(results[1].Message, "spam") {
		t.Errorf("b got %+v, want the DATA reply", results[1])
	}
	if results[2].Code != 550 {
		t.Errorf("c got %+v, want its RCPT reply", results[2])
	}

	srv.Reset()
	srv.Script("a@example.org", testutil.Reply{Stage: testutil.StageData, Code: 452, Enhanced: "4.3.1", Message: "out of storage"})
	results = relay.Deliver(testContext(t), Envelope{From: "s@example.com", Recipients: []string{"a@example.org", "b@example.org"}}, builtMessage(t))
	assertClasses(t, results, map[string]Class{"a@example.org": ClassTemporary, "b@example.org": ClassTemporary})
	if results[0].Enhanced != "4.3.1" {
		t.Errorf("enhanced %q", results[0].Enhanced)
	}
}

func TestDropDuringDataIsTemporary(t *testing.T) {
	t.Parallel()
	srv := testutil.NewSMTPServer(t, testutil.DropDuringData())
	srv.Script("gone@example.org", testutil.Reply{Stage: testutil.StageRcpt, Code: 550, Enhanced: "5.1.1"})
	relay := newPlainRelay(t, srv, RelayOptions{})
	results := relay.Deliver(testContext(t), Envelope{From: "s@example.com", Recipients: []string{"a@example.org", "gone@example.org", "b@example.org"}}, builtMessage(t))
	assertClasses(t, results, map[string]Class{"a@example.org": ClassTemporary, "gone@example.org": ClassPermanent, "b@example.org": ClassTemporary})
	if r := results[0]; r.Enhanced != "4.4.2" || r.Code != 0 || !strings.Contains(r.Message, "connection") {
		t.Errorf("result %+v, want a described connection failure", r)
	}
	// The broken connection is not reused.
	srv.SetDropDuringData(false)
	results = relay.Deliver(testContext(t), Envelope{From: "s@example.com", Recipients: []string{"a@example.org"}}, builtMessage(t))
	assertClasses(t, results, map[string]Class{"a@example.org": ClassAccepted})
	if n := srv.Connections(); n != 2 {
		t.Errorf("%d connections, want 2", n)
	}
}

func TestStalledServerTimesOut(t *testing.T) {
	t.Parallel()
	for _, stage := range []testutil.Stage{testutil.StageConnect, testutil.StageMail, testutil.StageRcpt, testutil.StageData} {
		t.Run(stage.String(), func(t *testing.T) {
			t.Parallel()
			srv := testutil.NewSMTPServer(t, testutil.StallAfter(stage, 30*time.Second))
			opts := RelayOptions{DialTimeout: time.Second, CommandTimeout: 300 * time.Millisecond, DataTimeout: 300 * time.Millisecond}
			relay := newPlainRelay(t, srv, opts)
			start := time.Now()
			results := relay.Deliver(testContext(t), Envelope{From: "s@example.com", Recipients: []string{"a@example.org", "b@example.org"}}, builtMessage(t))
			elapsed := time.Since(start)
			assertClasses(t, results, map[string]Class{"a@example.org": ClassTemporary, "b@example.org": ClassTemporary})
			// The server stalls for 30 s; the slack absorbs a loaded CI machine.
			if elapsed > 10*time.Second {
				t.Errorf("Deliver took %s with 300ms timeouts", elapsed)
			}
			if !strings.Contains(results[0].Message, "timeout") {
				t.Errorf("message %q does not say timeout", results[0].Message)
			}
		})
	}
}

func TestContextCancelsStalledDelivery(t *testing.T) {
	t.Parallel()
	srv := testutil.NewSMTPServer(t, testutil.StallAfter(testutil.StageRcpt, 30*time.Second))
	relay := newPlainRelay(t, srv, RelayOptions{DialTimeout: time.Second, CommandTimeout: time.Minute, DataTimeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	results := relay.Deliver(ctx, Envelope{From: "s@example.com", Recipients: []string{"a@example.org"}}, builtMessage(t))
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("Deliver took %s after cancellation", elapsed)
	}
	if r := results[0]; r.Class != ClassTemporary || !strings.Contains(r.Message, "interrupted") {
		t.Errorf("result %+v", r)
	}
	if n := relay.pool.idleCount(); n != 0 {
		t.Errorf("interrupted connection went back to the pool")
	}
}

func TestUnreachableRelayIsTemporary(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close() // nothing listens there any more
	relay := newRelay(t, "smtp+plain://"+addr, RelayOptions{})
	results := relay.Deliver(testContext(t), Envelope{From: "s@example.com", Recipients: []string{"a@example.org"}}, builtMessage(t))
	if r := results[0]; r.Class != ClassTemporary || r.Enhanced != "4.4.1" || r.Host != "127.0.0.1" {
		t.Errorf("result %+v", r)
	}
}

func TestRefusesUnsafeInput(t *testing.T) {
	t.Parallel()
	srv := testutil.NewSMTPServer(t)
	relay := newPlainRelay(t, srv, RelayOptions{})
	ctx := testContext(t)
	good := builtMessage(t)

	// Bare LF, bare CR and NUL could smuggle a second message past "."
	// (SMTP smuggling); nothing is sent.
	for name, data := range map[string]string{
		"bare LF":  "Subject: x\r\n\r\nbody\n.\nMAIL FROM:<evil@x>\r\n",
		"bare CR":  "Subject: x\r\n\r\nbody\r.\r\n",
		"NUL byte": "Subject: x\r\n\r\nbo\x00dy\r\n",
	} {
		results := relay.Deliver(ctx, Envelope{From: "s@example.com", Recipients: []string{"a@example.org"}}, []byte(data))
		if results[0].Class != ClassPermanent {
			t.Errorf("%s: result %+v", name, results[0])
		}
	}
	results := relay.Deliver(ctx, Envelope{From: "s@example.com\r\nRCPT TO:<x@y>", Recipients: []string{"a@example.org", "b@example.org"}}, good)
	assertClasses(t, results, map[string]Class{"a@example.org": ClassPermanent, "b@example.org": ClassPermanent})
	if srv.Connections() != 0 {
		t.Errorf("unsafe input reached the server")
	}

	// One bad recipient fails alone.
	results = relay.Deliver(ctx, Envelope{From: "s@example.com", Recipients: []string{"a@example.org", "b@example.org>\r\nDATA", "not-an-address"}}, good)
	assertClasses(t, results, map[string]Class{"a@example.org": ClassAccepted, "b@example.org>\r\nDATA": ClassPermanent, "not-an-address": ClassPermanent})
	if msgs := srv.Messages(); len(msgs) != 1 || len(msgs[0].To) != 1 {
		t.Errorf("server received %+v", msgs)
	}
}

func TestNullSenderAndUTF8Addresses(t *testing.T) {
	t.Parallel()
	srv := testutil.NewSMTPServer(t)
	relay := newPlainRelay(t, srv, RelayOptions{})
	results := relay.Deliver(testContext(t), Envelope{From: "", Recipients: []string{"josé@example.org"}}, builtMessage(t))
	assertClasses(t, results, map[string]Class{"josé@example.org": ClassAccepted})
	msgs := srv.Messages()
	if len(msgs) != 1 || msgs[0].From != "" || !msgs[0].MailOptions.UTF8 {
		t.Errorf("server received %+v", msgs)
	}
}

func TestMessageOverServerSizeIsPermanent(t *testing.T) {
	t.Parallel()
	srv := testutil.NewSMTPServer(t, testutil.WithMaxMessageBytes(100))
	relay := newPlainRelay(t, srv, RelayOptions{})
	results := relay.Deliver(testContext(t), Envelope{From: "s@example.com", Recipients: []string{"a@example.org"}}, builtMessage(t))
	if r := results[0]; r.Class != ClassPermanent || r.Enhanced != "5.3.4" {
		t.Errorf("result %+v", r)
	}
	if len(srv.Messages()) != 0 {
		t.Error("oversized message sent")
	}
}
