package bounce

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

// dsnMessage wraps a delivery-status body (and optional part headers) in
// a minimal multipart/report.
func dsnMessage(statusHeaders, status string) []byte {
	return []byte("From: MAILER-DAEMON@mx.example.org\n" +
		"Subject: Undelivered Mail Returned to Sender\n" +
		"Content-Type: multipart/report; report-type=delivery-status; boundary=\"B\"\n\n" +
		"--B\nContent-Type: text/plain\n\nIt failed.\n" +
		"--B\nContent-Type: message/delivery-status\n" + statusHeaders + "\n" + status + "\n" +
		"--B\nContent-Type: text/rfc822-headers\n\nMessage-ID: <m1@shop.example>\nTo: x@example.org\n" +
		"--B--\n")
}

func TestDSNFieldVariants(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, status string
		want         RecipientReport
	}{
		{
			"only Original-Recipient",
			"Reporting-MTA: dns; mx\n\nOriginal-Recipient: rfc822;Only@Example.org\nAction: failed\nStatus: 5.1.1\n",
			RecipientReport{Recipient: "only@example.org", OriginalRecipient: "only@example.org", Action: "failed", Status: "5.1.1", Class: ClassHard},
		},
		{
			"no per-message block, upper-case type, status comment", // D69: the 5.0.0 is refined by the diagnostic
			"Final-Recipient: RFC822; X@Example.ORG\nAction: FAILED\nStatus: 5.0.0 (permanent failure)\nDiagnostic-Code: X-Postfix; host mx said: 550 5.7.1 rejected by policy\n",
			RecipientReport{Recipient: "x@example.org", Action: "failed", Status: "5.7.1", Code: 550, Class: ClassBlock,
				Diagnostic: "host mx said: 550 5.7.1 rejected by policy"},
		},
		{
			"no Status field: taken from the diagnostic",
			"Reporting-MTA: dns; mx\n\nFinal-Recipient: rfc822; x@example.org\nAction: failed\nDiagnostic-Code: smtp;550-5.1.1 gone\n",
			RecipientReport{Recipient: "x@example.org", Action: "failed", Status: "5.1.1", Code: 550, Class: ClassHard, Diagnostic: "550-5.1.1 gone"},
		},
		{
			"utf-8 address type (RFC 6533)",
			"Reporting-MTA: dns; mx\n\nFinal-Recipient: utf-8; x@example.org\nAction: delayed\nStatus: 4.4.1\n",
			RecipientReport{Recipient: "x@example.org", Action: "delayed", Status: "4.4.1", Class: ClassDelayed},
		},
	}
	for _, tc := range tests {
		r, err := Parse(dsnMessage("", tc.status))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if r.Kind != KindDSN || len(r.Recipients) != 1 || r.Recipients[0] != tc.want || r.OriginalMessageID != "m1@shop.example" {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, r, tc.want)
		}
	}
}

func TestDSNEncodedStatusPart(t *testing.T) {
	t.Parallel()
	status := "Reporting-MTA: dns; mx\r\n\r\nFinal-Recipient: rfc822; x@example.org\r\nAction: failed\r\nStatus: 5.2.2\r\n"
	raw := dsnMessage("Content-Transfer-Encoding: base64\n", base64.StdEncoding.EncodeToString([]byte(status)))
	r, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Recipients[0]; got.Recipient != "x@example.org" || got.Class != ClassSoft {
		t.Errorf("got %+v", got)
	}
}

func TestDSNGlobalDeliveryStatus(t *testing.T) {
	t.Parallel()
	raw := strings.Replace(string(dsnMessage("", "Final-Recipient: rfc822; x@example.org\nAction: failed\nStatus: 5.1.1\n")),
		"message/delivery-status", "message/global-delivery-status", 1)
	if r, err := Parse([]byte(raw)); err != nil || r.Recipients[0].Class != ClassHard {
		t.Errorf("got %+v, %v", r, err)
	}
}

// A DSN whose status part names no recipient falls back to the text; when
// that names none either, it is not a usable bounce.
func TestDSNWithoutRecipients(t *testing.T) {
	t.Parallel()
	_, err := Parse(dsnMessage("", "Reporting-MTA: dns; mx\n"))
	if !errors.Is(err, ErrNotABounce) {
		t.Errorf("err = %v, want ErrNotABounce", err)
	}
	raw := strings.Replace(string(dsnMessage("", "Reporting-MTA: dns; mx\n")), "It failed.",
		"Delivery to the following recipient failed permanently:\n\n    lost@example.org\n\n550 5.1.1 unknown", 1)
	r, err := Parse([]byte(raw))
	if err != nil || r.Kind != KindPlain || r.Recipients[0].Recipient != "lost@example.org" || r.Recipients[0].Class != ClassHard {
		t.Errorf("fallback: %+v, %v", r, err)
	}
}

// A report quoted inside a returned original is not the message's own.
func TestDSNInsideEnclosedMessageIgnored(t *testing.T) {
	t.Parallel()
	inner := string(dsnMessage("", "Final-Recipient: rfc822; x@example.org\nAction: failed\nStatus: 5.1.1\n"))
	raw := "From: someone@example.net\nSubject: fwd\nContent-Type: multipart/mixed; boundary=M\n\n" +
		"--M\nContent-Type: text/plain\n\nsee attached\n--M\nContent-Type: message/rfc822\n\n" + inner + "\n--M--\n"
	if _, err := Parse([]byte(raw)); !errors.Is(err, ErrNotABounce) {
		t.Errorf("err = %v, want ErrNotABounce", err)
	}
}

// Without a returned original the Message-ID comes from Gmail's
// X-Original-Message-ID, else from the bounce's In-Reply-To.
func TestDSNMessageIDFallbacks(t *testing.T) {
	t.Parallel()
	withoutOriginal := func(extraHeader, perMessage string) []byte {
		return []byte("From: MAILER-DAEMON@mx.example.org\n" + extraHeader +
			"Content-Type: multipart/report; report-type=delivery-status; boundary=B\n\n" +
			"--B\nContent-Type: message/delivery-status\n\n" + perMessage +
			"\nFinal-Recipient: rfc822; x@example.org\nAction: failed\nStatus: 5.1.1\n--B--\n")
	}
	tests := []struct {
		name string
		raw  []byte
		want string
	}{
		{"x-original-message-id", withoutOriginal("In-Reply-To: <other@shop.example>\n", "Reporting-MTA: dns; g\nX-Original-Message-ID: <gm@shop.example>\n"), "gm@shop.example"},
		{"in-reply-to", withoutOriginal("In-Reply-To: <irt@shop.example>\n", "Reporting-MTA: dns; g\n"), "irt@shop.example"},
		{"none", withoutOriginal("", "Reporting-MTA: dns; g\nOriginal-Envelope-Id: env-1\n"), ""},
	}
	for _, tc := range tests {
		r, err := Parse(tc.raw)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if r.OriginalMessageID != tc.want {
			t.Errorf("%s: OriginalMessageID = %q, want %q", tc.name, r.OriginalMessageID, tc.want)
		}
	}
}
