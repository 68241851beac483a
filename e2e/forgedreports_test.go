package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// D65 tests: every recipient gets its own SMTP transaction and signed
// return path, and an inbound report changes only the recipient it is bound
// to. The inbound listener applies a report before it answers the DATA of
// the message that carried it, so once smtp.SendMail returns there is
// nothing left to wait for.

const (
	toAddr  = "to@customer.example"
	ccAddr  = "cc@customer.example"
	bccAddr = "bcc@customer.example"
)

// threeRecipients sends an email to one To, one Cc and one Bcc recipient,
// waits until it is delivered and returns its id and each recipient's
// message as the relay received it.
func threeRecipients(t *testing.T, ts *testserver.TestServer, sink *testutil.SMTPServer) (string, map[string]testutil.ReceivedMessage) {
	t.Helper()
	res := send(t, ts, ts.LiveKey, map[string]any{"from": "orders@shop.example", "to": toAddr, "cc": ccAddr, "bcc": bccAddr,
		"subject": "s", "text": "t"})
	waitStatus(t, ts, ts.LiveKey, res.ID, "delivered")
	byRcpt := map[string]testutil.ReceivedMessage{}
	for _, m := range sink.Messages() {
		testserver.Must(t, len(m.To) == 1, "a transaction with %d recipients: %v", len(m.To), m.To)
		byRcpt[m.To[0]] = m
	}
	testserver.Must(t, len(byRcpt) == 3, "transactions for %d recipients, want 3", len(byRcpt))
	return res.ID, byRcpt
}

// sendInbound hands raw to the inbound listener for rcpt.
func sendInbound(t *testing.T, ts *testserver.TestServer, rcpt, raw string) {
	t.Helper()
	err := sendSMTP(ts.InboundAddr(), "mta.sender.test", "", []string{rcpt}, []byte(raw))
	testserver.Must(t, err == nil, "inbound refused the report for %s: %v", rcpt, err)
}

// dsnFor is a DSN saying that failed bounced, quoting the original
// message's headers with the given Return-Path ("" for none).
func dsnFor(to, failed, messageID, returnPath string) string {
	raw := fmt.Sprintf(dsnTemplate, to, failed, messageID)
	if returnPath != "" {
		raw = strings.Replace(raw, "text/rfc822-headers\r\n\r\n", "text/rfc822-headers\r\n\r\nReturn-Path: <"+returnPath+">\r\n", 1)
	}
	return raw
}

// arfFor is an abuse report about messageID. rcptTo is its
// Original-Rcpt-To ("" for none: redacted); shownTo the To header of the
// quoted original; returnPath its Return-Path ("" for none).
func arfFor(to, rcptTo, shownTo, messageID, returnPath string) string {
	feedback := "Feedback-Type: abuse\r\nUser-Agent: ExampleFBL/1.0\r\nVersion: 1\r\n"
	if rcptTo != "" {
		feedback += "Original-Rcpt-To: " + rcptTo + "\r\n"
	}
	original := ""
	if returnPath != "" {
		original = "Return-Path: <" + returnPath + ">\r\n"
	}
	original += "From: orders@shop.example\r\nTo: " + shownTo + "\r\nSubject: s\r\nMessage-ID: <" + messageID + ">\r\n\r\nhello\r\n"
	return "From: feedback@arf.example.net\r\nTo: " + to + "\r\nSubject: FW: s\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/report; report-type=feedback-report; boundary=\"arf\"\r\n\r\n" +
		"--arf\r\nContent-Type: text/plain\r\n\r\nThis is an email abuse report.\r\n" +
		"--arf\r\nContent-Type: message/feedback-report\r\n\r\n" + feedback +
		"--arf\r\nContent-Type: message/rfc822\r\n\r\n" + original +
		"--arf--\r\n"
}

// suppressionsOf returns the reasons of address's active suppressions.
func suppressionsOf(t *testing.T, ts *testserver.TestServer, address string) []string {
	t.Helper()
	r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/suppressions?email=" + address, Key: ts.LiveKey})
	testserver.Expect(t, r, 200, "")
	var body struct {
		Suppressions []struct {
			Email  string `json:"email"`
			Reason string `json:"reason"`
		} `json:"suppressions"`
	}
	r.Decode(t, &body)
	var reasons []string
	for _, s := range body.Suppressions {
		if strings.EqualFold(s.Email, address) {
			reasons = append(reasons, s.Reason)
		}
	}
	return reasons
}

// unboundReports reads carteiro_inbound_reports_total{outcome="unbound"}.
func unboundReports(t *testing.T, ts *testserver.TestServer) int {
	t.Helper()
	r := ts.Do(t, testserver.Request{Method: "GET", Path: "/metrics"})
	testserver.Expect(t, r, 200, "")
	sc := bufio.NewScanner(bytes.NewReader(r.Body))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), `carteiro_inbound_reports_total{outcome="unbound"} `); ok {
			n, err := strconv.ParseFloat(v, 64)
			testserver.Must(t, err == nil, "metric value %q", v)
			return int(n)
		}
	}
	t.Fatalf("/metrics has no unbound inbound report counter:\n%s", r.Body)
	return 0
}

// assertUntouched checks that nothing recorded a bounce or complaint of
// email id nor suppressed any of addrs.
func assertUntouched(t *testing.T, ts *testserver.TestServer, id string, addrs ...string) {
	t.Helper()
	evs := events(t, ts, ts.LiveKey, id)
	testserver.Must(t, len(findEvents(evs, "bounced")) == 0 && len(findEvents(evs, "complained")) == 0, "timeline %v", eventTypes(evs))
	e := getEmail(t, ts, ts.LiveKey, id)
	testserver.Must(t, e.Status == "delivered" && e.BouncedAt == nil && e.ComplainedAt == nil, "email %s: status %s", id, e.Status)
	for _, a := range addrs {
		testserver.Must(t, len(suppressionsOf(t, ts, a)) == 0, "%s suppressed: %v", a, suppressionsOf(t, ts, a))
	}
}

// TestD65OneTransactionPerRecipient: To, Cc and Bcc each get their own
// transaction on one connection, with their own signed return path, and the
// same bytes, one DKIM signature made once.
func TestD65OneTransactionPerRecipient(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, sink, _ := relayServer(t, b, nil)
		_, byRcpt := threeRecipients(t, ts, sink)
		first := byRcpt[toAddr]
		paths := map[string]bool{}
		for rcpt, m := range byRcpt {
			local, domain, _ := strings.Cut(m.From, "@")
			testserver.Must(t, strings.HasPrefix(local, "bounces+") && domain == "bounces.shop.example", "%s: return path %s", rcpt, m.From)
			testserver.Must(t, len(local) <= 64, "%s: local part of %d octets", rcpt, len(local))
			testserver.Must(t, local == strings.ToLower(local), "%s: return path %s is not lowercase", rcpt, m.From)
			paths[m.From] = true
			testserver.Must(t, bytes.Equal(m.Data, first.Data), "%s received other bytes than %s", rcpt, toAddr)
			testserver.Must(t, bytes.Count(m.Data, []byte("DKIM-Signature:")) == 1, "%s: %d DKIM signatures", rcpt, bytes.Count(m.Data, []byte("DKIM-Signature:")))
			testserver.Must(t, m.Connection == first.Connection, "%s on connection %s, %s on %s", rcpt, m.Connection, toAddr, first.Connection)
		}
		testserver.Must(t, len(paths) == 3, "return paths %v, want one per recipient", paths)
		testserver.Must(t, !bytes.Contains(first.Data, []byte(bccAddr)), "the Bcc address is in the message")
		verifyDKIM(t, ts, first.Data)
		testserver.Must(t, sink.Connections() == 1, "%d connections, want 1", sink.Connections())
	})
}

// TestD65TenRecipientsTenTransactionsOneSignature measures the cost of D65
// for a 10-recipient email: 10 transactions on one connection, one DKIM
// signature shared by all of them.
func TestD65TenRecipientsTenTransactionsOneSignature(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, sink, _ := relayServer(t, b, nil)
		var to []string
		for i := range 10 {
			to = append(to, fmt.Sprintf("r%d@customer.example", i))
		}
		res := send(t, ts, ts.LiveKey, map[string]any{"from": "orders@shop.example", "to": to, "subject": "s", "text": "t"})
		waitStatus(t, ts, ts.LiveKey, res.ID, "delivered")
		msgs := sink.Messages()
		signatures := map[string]bool{}
		for _, m := range msgs {
			i := bytes.Index(m.Data, []byte("\r\n\r\n"))
			signatures[string(m.Data[:i])] = true // the header section, DKIM-Signature included
		}
		testserver.Must(t, len(msgs) == 10 && len(signatures) == 1 && sink.Connections() == 1,
			"%d transactions, %d distinct signed headers, %d connections; want 10, 1, 1", len(msgs), len(signatures), sink.Connections())
	})
}

// TestD65ForgedDSNChangesNothing: a recipient (the Bcc one) and a stranger
// who knows the Message-ID send DSNs naming another recipient; a DSN with a
// tampered token too. None changes anything, each is counted as unbound.
// The real DSN, at the Cc recipient's own return path, bounces and
// suppresses exactly that recipient.
func TestD65ForgedDSNChangesNothing(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, sink, _ := relayServer(t, b, map[string]string{"CARTEIRO_INBOUND_ADDR": "127.0.0.1:0"})
		id, byRcpt := threeRecipients(t, ts, sink)
		msgID := id + "@shop.example"
		own := byRcpt[bccAddr].From // the attacker's own, valid, return path
		before := unboundReports(t, ts)

		// The Bcc recipient, through its own return path, says To bounced.
		sendInbound(t, ts, own, dsnFor(own, toAddr, msgID, ""))
		// A stranger knowing the Message-ID writes to the bounce domain.
		sendInbound(t, ts, "postmaster@bounces.shop.example", dsnFor("postmaster@bounces.shop.example", toAddr, msgID, ""))
		// The Bcc recipient quotes its own return path in the original.
		sendInbound(t, ts, "postmaster@bounces.shop.example", dsnFor("postmaster@bounces.shop.example", ccAddr, msgID, own))
		assertUntouched(t, ts, id, toAddr, ccAddr, bccAddr)
		testserver.Must(t, unboundReports(t, ts) == before+3, "unbound reports %d, want %d", unboundReports(t, ts), before+3)

		// The real one, at the Cc recipient's return path.
		ccPath := byRcpt[ccAddr].From
		sendInbound(t, ts, ccPath, dsnFor(ccPath, ccAddr, msgID, ""))
		bounced := findEvents(events(t, ts, ts.LiveKey, id), "bounced")
		testserver.Must(t, len(bounced) == 1 && bounced[0].Metadata["recipient"] == ccAddr, "bounced events %+v", bounced)
		testserver.Must(t, strings.Join(suppressionsOf(t, ts, ccAddr), ",") == "mailbox_not_found", "cc suppressions %v", suppressionsOf(t, ts, ccAddr))
		testserver.Must(t, len(suppressionsOf(t, ts, toAddr)) == 0 && len(suppressionsOf(t, ts, bccAddr)) == 0, "another recipient was suppressed")
		testserver.Must(t, getEmail(t, ts, ts.LiveKey, id).Status == "bounced", "email status")
	})
}

// TestD65TamperedTokenChangesNothing: the Cc recipient's return path with
// one character of its token changed binds nothing, whatever the DSN says.
func TestD65TamperedTokenChangesNothing(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, sink, _ := relayServer(t, b, map[string]string{"CARTEIRO_INBOUND_ADDR": "127.0.0.1:0"})
		id, byRcpt := threeRecipients(t, ts, sink)
		path := []byte(byRcpt[ccAddr].From)
		i := len("bounces+") + 5
		path[i] = map[bool]byte{true: 'b', false: 'a'}[path[i] == 'a']
		tampered := string(path)
		before := unboundReports(t, ts)
		sendInbound(t, ts, tampered, dsnFor(tampered, ccAddr, id+"@shop.example", ""))
		assertUntouched(t, ts, id, toAddr, ccAddr, bccAddr)
		testserver.Must(t, unboundReports(t, ts) == before+1, "unbound reports %d, want %d", unboundReports(t, ts), before+1)
	})
}

// TestD65ForgedAndRedactedARF: an ARF naming another recipient changes
// nothing; a redacted ARF about a multi-recipient email without a token
// changes nothing (it used to be pinned on the To recipient); the Bcc
// recipient's own complaint, its token in the quoted Return-Path and the To
// recipient in the quoted To header, suppresses the Bcc recipient alone; a
// redacted ARF about a single-recipient email suppresses that recipient,
// matched by Message-ID.
func TestD65ForgedAndRedactedARF(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, sink, _ := relayServer(t, b, map[string]string{"CARTEIRO_INBOUND_ADDR": "127.0.0.1:0"})
		id, byRcpt := threeRecipients(t, ts, sink)
		msgID := id + "@shop.example"
		own := byRcpt[bccAddr].From
		const fbl = "fbl@bounces.shop.example"
		before := unboundReports(t, ts)

		sendInbound(t, ts, own, arfFor(own, toAddr, toAddr, msgID, ""))                     // forged: names To
		sendInbound(t, ts, fbl, arfFor(fbl, "", toAddr, msgID, ""))                         // redacted, no token
		sendInbound(t, ts, fbl, arfFor(fbl, "redacted@example.invalid", toAddr, msgID, "")) // redacted address, no token
		assertUntouched(t, ts, id, toAddr, ccAddr, bccAddr)
		testserver.Must(t, unboundReports(t, ts) == before+3, "unbound reports %d, want %d", unboundReports(t, ts), before+3)

		// The Bcc recipient's real complaint: its copy shows To in the header.
		sendInbound(t, ts, fbl, arfFor(fbl, "", toAddr, msgID, own))
		complained := findEvents(events(t, ts, ts.LiveKey, id), "complained")
		testserver.Must(t, len(complained) == 1 && complained[0].Metadata["recipient"] == bccAddr, "complained events %+v", complained)
		testserver.Must(t, strings.Join(suppressionsOf(t, ts, bccAddr), ",") == "complaint", "bcc suppressions %v", suppressionsOf(t, ts, bccAddr))
		testserver.Must(t, len(suppressionsOf(t, ts, toAddr)) == 0 && len(suppressionsOf(t, ts, ccAddr)) == 0, "another recipient was suppressed")

		// A single recipient: the redacted report can only be about it.
		single := send(t, ts, ts.LiveKey, map[string]any{"from": "orders@shop.example", "to": "solo@customer.example", "subject": "s", "text": "t"})
		waitStatus(t, ts, ts.LiveKey, single.ID, "delivered")
		sendInbound(t, ts, fbl, arfFor(fbl, "", "redacted", single.ID+"@shop.example", ""))
		complained = findEvents(events(t, ts, ts.LiveKey, single.ID), "complained")
		testserver.Must(t, len(complained) == 1 && complained[0].Metadata["recipient"] == "solo@customer.example", "complained events %+v", complained)
		testserver.Must(t, strings.Join(suppressionsOf(t, ts, "solo@customer.example"), ",") == "complaint", "solo suppressions")
	})
}
