package mta

import (
	"slices"
	"strings"
	"testing"
	"time"
)

var pipeData = []byte("Subject: pipelined\r\n\r\nhello\r\n")

// deliverPipe delivers one email to recipients at pipe.test.
func deliverPipe(t *testing.T, direct *Direct, recipients ...string) []Result {
	t.Helper()
	ctx := farmContext(t, 20*time.Second)
	return direct.Deliver(ctx, Envelope{From: "s@example.com", Recipients: recipients}, pipeData)
}

// assertGroup checks one group's commands by their verbs.
func assertGroup(t *testing.T, got []string, want ...string) {
	t.Helper()
	verbs := make([]string, len(got))
	for i, cmd := range got {
		verbs[i], _, _ = strings.Cut(cmd, ":")
	}
	if !slices.Equal(verbs, want) {
		t.Errorf("group %q, want the commands %q in one group", got, want)
	}
}

// issue 32: with PIPELINING, MAIL, the RCPTs and DATA go in one group
// (RFC 2920, as Postfix sends them), and a reused connection's RSET heads
// the next group: the server has every command of a transaction before it
// answers any (it answers nothing earlier), and two emails take one
// connection.
func TestDirectPipelinesDataWithTheEnvelope(t *testing.T) {
	t.Parallel()
	direct, mx := directToPipelined(t, nil, "")
	for i, rcpt := range []string{"a@pipe.test", "b@pipe.test"} {
		if r := deliverPipe(t, direct, rcpt)[0]; r.Class != ClassAccepted || r.Code != 250 {
			t.Fatalf("email %d: %+v, want accepted", i, r)
		}
	}
	groups, bodies, connections := mx.seen()
	if connections != 1 || len(groups) != 2 || len(bodies) != 2 {
		t.Fatalf("%d connections, %d groups, %d messages; want 1, 2, 2", connections, len(groups), len(bodies))
	}
	assertGroup(t, groups[0], "MAIL FROM", "RCPT TO", "DATA")
	assertGroup(t, groups[1], "RSET", "MAIL FROM", "RCPT TO", "DATA")
	if bodies[1] != string(pipeData) {
		t.Errorf("message %q, want %q", bodies[1], pipeData)
	}
}

// issue 32: in one pipelined group, refused and accepted recipients each
// get their own reply, exactly as one command at a time gives them, and
// the message is sent once for the accepted ones.
func TestDirectPipelinedMixedRecipients(t *testing.T) {
	t.Parallel()
	direct, mx := directToPipelined(t, map[string]string{
		"gone@pipe.test": "550 5.1.1 no such user",
		"busy@pipe.test": "451 4.3.0 try later",
	}, "")
	results := deliverPipe(t, direct, "ok1@pipe.test", "gone@pipe.test", "busy@pipe.test", "ok2@pipe.test")
	assertClasses(t, results, map[string]Class{
		"ok1@pipe.test": ClassAccepted, "gone@pipe.test": ClassPermanent,
		"busy@pipe.test": ClassTemporary, "ok2@pipe.test": ClassAccepted,
	})
	if r := results[1]; r.Code != 550 || r.Enhanced != "5.1.1" || r.Message != "no such user" {
		t.Errorf("refused recipient %+v, want its RCPT reply", r)
	}
	if r := results[2]; r.Code != 451 || r.Enhanced != "4.3.0" {
		t.Errorf("deferred recipient %+v, want its RCPT reply", r)
	}
	if r := results[0]; r.Code != 250 || r.Message != "queued" {
		t.Errorf("accepted recipient %+v, want the reply after the message", r)
	}
	groups, bodies, _ := mx.seen()
	if len(groups) != 1 || len(bodies) != 1 {
		t.Fatalf("%d groups, %d messages; want 1 and 1", len(groups), len(bodies))
	}
	assertGroup(t, groups[0], "MAIL FROM", "RCPT TO", "RCPT TO", "RCPT TO", "RCPT TO", "DATA")
}

// issue 32: every RCPT refused and DATA answered 554, as RFC 2920 section
// 3.1 has the server do: no message, each recipient keeps its RCPT reply
// (not the 554), and the connection, left in a transaction, serves the
// next email after an RSET in its group.
func TestDirectPipelinedAllRefusedWith554ToData(t *testing.T) {
	t.Parallel()
	direct, mx := directToPipelined(t, map[string]string{
		"gone@pipe.test":    "550 5.1.1 no such user",
		"blocked@pipe.test": "550 5.7.1 rejected by policy",
	}, "")
	results := deliverPipe(t, direct, "gone@pipe.test", "blocked@pipe.test")
	assertClasses(t, results, map[string]Class{"gone@pipe.test": ClassPermanent, "blocked@pipe.test": ClassBlock})
	if r := results[0]; r.Code != 550 || r.Enhanced != "5.1.1" {
		t.Errorf("result %+v, want its RCPT reply", r)
	}
	if r := deliverPipe(t, direct, "next@pipe.test")[0]; r.Class != ClassAccepted {
		t.Fatalf("next email: %+v, want accepted", r)
	}
	groups, bodies, connections := mx.seen()
	if connections != 1 || len(bodies) != 1 || len(groups) != 2 {
		t.Fatalf("%d connections, %d messages, %d groups; want 1, 1 (the next email's), 2", connections, len(bodies), len(groups))
	}
	assertGroup(t, groups[1], "RSET", "MAIL FROM", "RCPT TO", "DATA")
}

// issue 32: a server that answers 354 to DATA although it refused every
// RCPT (not following RFC 2920 section 3.1) gets a lone "." (what that
// section asks of the client), so it receives no message; each recipient
// keeps its RCPT reply, and the connection stays in step for the next
// email.
func TestDirectPipelinedAllRefusedWith354ToData(t *testing.T) {
	t.Parallel()
	direct, mx := directToPipelined(t, map[string]string{
		"gone@pipe.test": "550 5.1.1 no such user",
		"busy@pipe.test": "450 4.2.1 mailbox busy",
	}, "354 go on anyway")
	results := deliverPipe(t, direct, "gone@pipe.test", "busy@pipe.test")
	assertClasses(t, results, map[string]Class{"gone@pipe.test": ClassPermanent, "busy@pipe.test": ClassTemporary})
	if r := results[1]; r.Code != 450 || r.Enhanced != "4.2.1" {
		t.Errorf("result %+v, want its RCPT reply", r)
	}
	if r := deliverPipe(t, direct, "next@pipe.test")[0]; r.Class != ClassAccepted || r.Message != "queued" {
		t.Fatalf("next email: %+v, want accepted on the same connection", r)
	}
	_, bodies, connections := mx.seen()
	if connections != 1 || len(bodies) != 2 {
		t.Fatalf("%d connections, %d message inputs; want 1 and 2", connections, len(bodies))
	}
	if bodies[0] != "" || bodies[1] != string(pipeData) {
		t.Errorf("message inputs %q, want an empty one (the lone dot) then the next email", bodies)
	}
}

// issue 32: a 421 in the middle of a group (the server closing): every
// recipient of the transaction is deferred with it, nothing is sent, and
// the next email takes a new connection.
func TestDirectPipelined421InTheMiddle(t *testing.T) {
	t.Parallel()
	direct, mx := directToPipelined(t, map[string]string{
		"closing@pipe.test": "421 4.3.2 shutting down",
	}, "")
	results := deliverPipe(t, direct, "first@pipe.test", "closing@pipe.test", "last@pipe.test")
	assertClasses(t, results, map[string]Class{
		"first@pipe.test": ClassTemporary, "closing@pipe.test": ClassTemporary, "last@pipe.test": ClassTemporary,
	})
	for _, r := range results {
		if r.Code != 421 || r.Enhanced != "4.3.2" {
			t.Errorf("result %+v, want the 421", r)
		}
	}
	if r := deliverPipe(t, direct, "next@pipe.test")[0]; r.Class != ClassAccepted {
		t.Fatalf("next email: %+v, want accepted", r)
	}
	_, bodies, connections := mx.seen()
	if connections != 2 || len(bodies) != 1 {
		t.Fatalf("%d connections, %d messages; want 2 and 1 (the next email's)", connections, len(bodies))
	}
}

// issue 32: the relay's pooled connection proves itself alive with an
// RSET at the head of the next transaction's pipelined group, as direct
// delivery does, instead of a round trip of its own: the server, which
// answers nothing before DATA, gets three emails on one connection.
func TestRelayPipelinesTheRSETOfAReusedConnection(t *testing.T) {
	t.Parallel()
	mx := servePipelinedMX(t, "127.0.0.1:0", nil, "")
	relay := newRelay(t, "smtp+plain://"+mx.addr, RelayOptions{})
	for i, rcpt := range []string{"a@example.org", "b@example.org", "c@example.org"} {
		r := relay.Deliver(testContext(t), Envelope{From: "s@example.com", Recipients: []string{rcpt}}, pipeData)[0]
		if r.Class != ClassAccepted {
			t.Fatalf("email %d: %+v, want accepted", i, r)
		}
	}
	groups, bodies, connections := mx.seen()
	if connections != 1 || len(groups) != 3 || len(bodies) != 3 {
		t.Fatalf("%d connections, %d groups, %d messages; want 1, 3, 3 (the RSET sent with MAIL)", connections, len(groups), len(bodies))
	}
	assertGroup(t, groups[2], "RSET", "MAIL FROM", "RCPT TO", "DATA")
}

// issue 32: a server that answers 421 to one RCPT but goes on (against
// RFC 5321 section 3.8), accepts the next RCPT and answers DATA with 354
// is waiting for a message: the transaction's recipients are deferred
// with the 421 and the connection is dropped without a word more (a QUIT
// would be read as the message), so nothing is delivered.
func TestDirectPipelined421ThenTheServerGoesOn(t *testing.T) {
	t.Parallel()
	direct, mx := directToPipelined(t, map[string]string{"closing@pipe.test": "421 4.3.2 shutting down"}, "")
	mx.mu.Lock()
	mx.goesOnAfter421 = true
	mx.mu.Unlock()
	results := deliverPipe(t, direct, "closing@pipe.test", "second@pipe.test")
	for _, r := range results {
		if r.Class != ClassTemporary || r.Code != 421 {
			t.Errorf("result %+v, want deferred with the 421", r)
		}
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if mx.cutShortCount() > 0 {
			break
		}
	}
	_, bodies, _ := mx.seen()
	mx.mu.Lock()
	defer mx.mu.Unlock()
	if len(bodies) != 0 || len(mx.cutShort) != 1 || mx.cutShort[0] != "" {
		t.Errorf("messages %q, input of dropped connections %q; want none and one empty", bodies, mx.cutShort)
	}
}
