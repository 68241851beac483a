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

// D65: the To of the returned original is only a guess at who complained
// (a Bcc recipient's copy shows the To recipient), and the return paths
// that may carry the per-recipient token are all collected.
func TestARFGuessedRecipientAndReturnPathsD65(t *testing.T) {
	t.Parallel()
	raw := append([]byte("Return-Path: <fbl-bounces@example.net>\n"), arfMessage("Feedback-Type: abuse\nOriginal-Mail-From: <bounces+mailfrom@bounces.shop.example>\n",
		"--F\nContent-Type: message/rfc822\n\nReturn-Path: <bounces+abc@bounces.shop.example>\nTo: visible@example.org\nMessage-ID: <m3@shop.example>\n\nbody\n")...)
	r, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Recipients) != 1 || r.Recipients[0].Recipient != "visible@example.org" || !r.Recipients[0].Guessed {
		t.Errorf("recipients %+v, want visible@example.org guessed", r.Recipients)
	}
	want := []string{"fbl-bounces@example.net", "bounces+abc@bounces.shop.example", "bounces+mailfrom@bounces.shop.example"}
	if len(r.ReturnPaths) != len(want) {
		t.Fatalf("return paths %q, want %q", r.ReturnPaths, want)
	}
	for i := range want {
		if r.ReturnPaths[i] != want[i] {
			t.Errorf("return paths %q, want %q", r.ReturnPaths, want)
		}
	}
	named, err := Parse(arfMessage("Feedback-Type: abuse\nOriginal-Rcpt-To: a@example.org\n",
		"--F\nContent-Type: message/rfc822\n\nTo: visible@example.org\nMessage-ID: <m3@shop.example>\n\nbody\n"))
	if err != nil || len(named.Recipients) != 1 || named.Recipients[0].Guessed {
		t.Errorf("a named recipient: %+v, %v", named, err)
	}
}
