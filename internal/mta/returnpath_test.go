package mta

import (
	"bytes"
	"testing"

	"github.com/carteiro/carteiro/internal/testutil"
)

// perRecipientEnvelope gives each recipient a return path of its own (D65).
func perRecipientEnvelope(rcpts ...string) Envelope {
	env := Envelope{From: "unused@bounces.example.com", EnvelopeID: "email-1", Recipients: rcpts}
	for i := range rcpts {
		env.ReturnPaths = append(env.ReturnPaths, "bounces+tok"+string(rune('a'+i))+"@bounces.example.com")
	}
	return env
}

// assertOneTransactionEach checks D65's wire shape: one transaction per
// recipient, each with its own MAIL FROM, the same bytes, one connection.
func assertOneTransactionEach(t *testing.T, msgs []testutil.ReceivedMessage, env Envelope, data []byte) {
	t.Helper()
	if len(msgs) != len(env.Recipients) {
		t.Fatalf("server received %d transactions, want %d", len(msgs), len(env.Recipients))
	}
	byRcpt := map[string]testutil.ReceivedMessage{}
	for _, m := range msgs {
		if len(m.To) != 1 {
			t.Fatalf("a transaction had %d recipients: %v", len(m.To), m.To)
		}
		byRcpt[m.To[0]] = m
		if !bytes.Equal(m.Data, data) {
			t.Errorf("transaction for %s carried other bytes", m.To[0])
		}
		if m.Connection != msgs[0].Connection {
			t.Errorf("transactions on connections %s and %s, want one", m.Connection, msgs[0].Connection)
		}
	}
	for i, rcpt := range env.Recipients {
		if m, ok := byRcpt[rcpt]; !ok || m.From != env.ReturnPaths[i] {
			t.Errorf("%s: MAIL FROM %q, want %q", rcpt, m.From, env.ReturnPaths[i])
		}
	}
}

func TestRelayOneTransactionPerReturnPathD65(t *testing.T) {
	t.Parallel()
	srv := testutil.NewSMTPServer(t)
	relay := newPlainRelay(t, srv, RelayOptions{})
	data := builtMessage(t)
	env := perRecipientEnvelope("ana@example.org", "bob@example.net", "cid@example.org")
	results := relay.Deliver(testContext(t), env, data)
	assertClasses(t, results, map[string]Class{"ana@example.org": ClassAccepted, "bob@example.net": ClassAccepted, "cid@example.org": ClassAccepted})
	assertOneTransactionEach(t, srv.Messages(), env, data)
	if n := srv.Connections(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
}

// A refused RCPT leaves its transaction open: the next one must start with
// RSET, or the server answers MAIL with 503 (nested MAIL).
func TestRelayResetsAfterARefusedRecipientD65(t *testing.T) {
	t.Parallel()
	srv := testutil.NewSMTPServer(t)
	relay := newPlainRelay(t, srv, RelayOptions{})
	srv.Script("gone@example.org", testutil.Reply{Stage: testutil.StageRcpt, Code: 550, Enhanced: "5.1.1", Message: "no such user"})
	srv.Script("refused@example.org", testutil.Reply{Stage: testutil.StageData, Code: 554, Enhanced: "5.7.1", Message: "spam"})
	data := builtMessage(t)
	env := perRecipientEnvelope("gone@example.org", "ana@example.org", "refused@example.org", "bob@example.org")
	results := relay.Deliver(testContext(t), env, data)
	assertClasses(t, results, map[string]Class{
		"gone@example.org": ClassPermanent, "ana@example.org": ClassAccepted, "refused@example.org": ClassBlock, "bob@example.org": ClassAccepted,
	})
	if n := srv.Connections(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
}

func TestDirectOneTransactionPerReturnPathD65(t *testing.T) {
	t.Parallel()
	bed := newDirectBed(t, nil)
	bed.dns.SetMX("example.org", testutil.MX{Host: "mx.example.org", Pref: 10})
	bed.dns.SetA("mx.example.org", "127.0.0.1")
	bed.srv.Script("gone@example.org", testutil.Reply{Stage: testutil.StageRcpt, Code: 550, Enhanced: "5.1.1", Message: "no such user"})
	data := builtMessage(t)
	env := perRecipientEnvelope("ana@example.org", "gone@example.org", "bob@example.org", "cid@example.org")
	results := bed.direct.Deliver(testContext(t), env, data)
	assertClasses(t, results, map[string]Class{
		"ana@example.org": ClassAccepted, "gone@example.org": ClassPermanent, "bob@example.org": ClassAccepted, "cid@example.org": ClassAccepted,
	})
	msgs := bed.srv.Messages()
	accepted := Envelope{Recipients: []string{"ana@example.org", "bob@example.org", "cid@example.org"},
		ReturnPaths: []string{env.ReturnPaths[0], env.ReturnPaths[2], env.ReturnPaths[3]}}
	assertOneTransactionEach(t, msgs, accepted, data)
	if n := bed.srv.Connections(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
}

// A connection lost in one recipient's transaction is opened again for the
// next recipients; the lost one is retried later (temporary).
func TestDirectReconnectsForTheRestD65(t *testing.T) {
	t.Parallel()
	bed := newDirectBed(t, nil)
	bed.dns.SetMX("example.org", testutil.MX{Host: "mx.example.org", Pref: 10})
	bed.dns.SetA("mx.example.org", "127.0.0.1")
	bed.srv.Script("closing@example.org", testutil.Reply{Stage: testutil.StageRcpt, Code: 421, Enhanced: "4.3.2", Message: "closing"})
	env := perRecipientEnvelope("ana@example.org", "closing@example.org", "bob@example.org")
	results := bed.direct.Deliver(testContext(t), env, builtMessage(t))
	assertClasses(t, results, map[string]Class{
		"ana@example.org": ClassAccepted, "closing@example.org": ClassTemporary, "bob@example.org": ClassAccepted,
	})
	if n := bed.srv.Connections(); n != 2 {
		t.Errorf("%d connections, want 2", n)
	}
}

func TestEnvelopeWithoutReturnPathsIsOneTransaction(t *testing.T) {
	t.Parallel()
	txs := Envelope{From: "a@example.com", Recipients: []string{"x@example.org", "y@example.org"}}.transactions()
	if len(txs) != 1 || len(txs[0].env.Recipients) != 2 || txs[0].env.From != "a@example.com" {
		t.Fatalf("transactions = %+v", txs)
	}
}
