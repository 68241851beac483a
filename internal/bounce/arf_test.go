package bounce

import (
	"errors"
	"testing"
)

func arfMessage(feedback, original string) []byte {
	return []byte("From: fbl@example.net\nContent-Type: multipart/report; report-type=feedback-report; boundary=F\n\n" +
		"--F\nContent-Type: text/plain\n\nabuse report\n" +
		"--F\nContent-Type: message/feedback-report\n\n" + feedback + "\n" + original + "--F--\n")
}

func TestARFRedactedRecipient(t *testing.T) {
	t.Parallel()
	r, err := Parse(arfMessage("Feedback-Type: Abuse\nVersion: 1\n",
		"--F\nContent-Type: message/rfc822\n\nReturn-Path: <bounces+Tok@bounces.shop.example>\nTo: redacted\nMessage-ID: <m2@shop.example>\n\nbody\n"))
	if err != nil {
		t.Fatal(err)
	}
	// No recipient can be named; matching uses the Message-ID and the
	// bounce token in the return path (D55).
	if r.Kind != KindARF || r.FeedbackType != "abuse" || len(r.Recipients) != 0 ||
		r.OriginalMessageID != "m2@shop.example" || r.OriginalMailFrom != "bounces+Tok@bounces.shop.example" {
		t.Errorf("got %+v", r)
	}
}

func TestARFSeveralRecipients(t *testing.T) {
	t.Parallel()
	r, err := Parse(arfMessage("Feedback-Type: not-spam\nOriginal-Rcpt-To: a@example.org\nOriginal-Rcpt-To: <B@example.org>\nOriginal-Mail-From: bounces+x@bounces.shop.example\n", ""))
	if err != nil {
		t.Fatal(err)
	}
	if r.FeedbackType != "not-spam" || len(r.Recipients) != 2 || r.Recipients[1].Recipient != "b@example.org" ||
		r.Recipients[1].Class != ClassComplaint || r.OriginalMailFrom != "bounces+x@bounces.shop.example" {
		t.Errorf("got %+v", r)
	}
}

func TestARFEmptyIsNotABounce(t *testing.T) {
	t.Parallel()
	if _, err := Parse(arfMessage("Version: 1\n", "")); !errors.Is(err, ErrNotABounce) {
		t.Errorf("err = %v, want ErrNotABounce", err)
	}
}
