package bounce

import (
	"errors"
	"strings"
	"testing"
)

// Without X-Failed-Recipients the Gmail bounce still names its recipient
// in the indented line after the phrase.
func TestPlainGmailWithoutFailedRecipientsHeader(t *testing.T) {
	t.Parallel()
	raw := strings.Replace(string(readCorpus(t, "plain_gmail.eml")), "X-Failed-Recipients: someone.missing@gmail.com\n", "", 1)
	r, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	want := corpusReport(t, "plain_gmail.eml")
	assertReport(t, r, want)
}

func TestPlainEximSeveralRecipients(t *testing.T) {
	t.Parallel()
	raw := `From: Mail Delivery System <Mailer-Daemon@mx.example.com>
To: bounces+tok@bounces.shop.example
Subject: Mail delivery failed: returning message to sender
X-Failed-Recipients: gone@example.com, full@example.net

This message was created automatically by mail delivery software.

A message that you sent could not be delivered to one or more of its
recipients. This is a permanent error. The following address(es) failed:

  gone@example.com
    host mx.example.com [192.0.2.1]
    SMTP error from remote mail server after RCPT TO:<gone@example.com>:
    550 5.1.1 <gone@example.com>: Recipient address rejected: User unknown
  full@example.net
    host mx.example.net [192.0.2.2]
    SMTP error from remote mail server after RCPT TO:<full@example.net>:
    552 5.2.2 Mailbox full

------ This is a copy of the message, including all the headers. ------

Return-path: <bounces+tok@bounces.shop.example>
From: Loja <pedidos@shop.example>
To: gone@example.com, full@example.net
Message-Id: <m3@shop.example>

hello
`
	r, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	assertReport(t, r, &Report{Kind: KindPlain, OriginalMessageID: "m3@shop.example", Recipients: []RecipientReport{
		{Recipient: "gone@example.com", Status: "5.1.1", Code: 550, Class: ClassHard,
			Diagnostic: "550 5.1.1 <gone@example.com>: Recipient address rejected: User unknown"},
		{Recipient: "full@example.net", Status: "5.2.2", Code: 552, Class: ClassSoft, Diagnostic: "552 5.2.2 Mailbox full"},
	}})
}

func TestPlainDelayNotice(t *testing.T) {
	t.Parallel()
	raw := `From: Mail Delivery Subsystem <mailer-daemon@googlemail.com>
To: bounces+tok@bounces.shop.example
Subject: Delivery Status Notification (Delay)

This is an automatically generated Delivery Status Notification

THIS IS A WARNING MESSAGE ONLY.

YOU DO NOT NEED TO RESEND YOUR MESSAGE.

Delivery to the following recipient has been delayed:

     slow@example.org

Message will be retried for 2 more day(s)

Technical details of temporary failure:
The recipient server did not accept our requests to connect.
[mx.example.org. 192.0.2.9: timed out]
421 4.4.0 [mx.example.org] connection timed out
`
	r, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	assertReport(t, r, &Report{Kind: KindPlain, Recipients: []RecipientReport{
		{Recipient: "slow@example.org", Status: "4.4.0", Code: 421, Class: ClassDelayed,
			Diagnostic: "421 4.4.0 [mx.example.org] connection timed out"},
	}})
}

// An HTML-only bounce that quotes no SMTP reply: the explanation line is
// the diagnostic and the wording classifies it as hard.
func TestPlainHTMLOnlyWithoutCode(t *testing.T) {
	t.Parallel()
	raw := `From: postmaster@contoso.com
To: bounces+tok@bounces.shop.example
Subject: Undeliverable: hello
Content-Type: text/html; charset=utf-8

<html><body><p>Delivery has failed to these recipients or groups:</p>
<p><a href="mailto:nobody@contoso.com">nobody@contoso.com</a></p>
<p>The email address you entered couldn&#39;t be found.</p></body></html>
`
	r, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	assertReport(t, r, &Report{Kind: KindPlain, Recipients: []RecipientReport{
		{Recipient: "nobody@contoso.com", Class: ClassHard, Diagnostic: "The email address you entered couldn't be found."},
	}})
}

// Some MTAs send a plain explanation with the original attached as a
// message/rfc822 part, inside multipart/mixed rather than a report.
func TestPlainWithAttachedOriginal(t *testing.T) {
	t.Parallel()
	raw := `From: MAILER-DAEMON@mx.example.org
To: bounces+tok@bounces.shop.example
Subject: failure notice
Content-Type: multipart/mixed; boundary="Q"

--Q
Content-Type: text/plain

Hi. This is the qmail-send program at mx.example.org.
I'm afraid I wasn't able to deliver your message to the following addresses.
This is a permanent error; I've given up. Sorry it didn't work out.

<who@example.org>:
192.0.2.7 does not like recipient.
Remote host said: 550 5.1.1 <who@example.org>... User unknown
Giving up on 192.0.2.7.

--Q
Content-Type: message/rfc822

Message-ID: <m4@shop.example>
From: pedidos@shop.example
To: who@example.org

hi
--Q--
`
	r, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	assertReport(t, r, &Report{Kind: KindPlain, OriginalMessageID: "m4@shop.example", Recipients: []RecipientReport{
		{Recipient: "who@example.org", Status: "5.1.1", Code: 550, Class: ClassHard,
			Diagnostic: "550 5.1.1 <who@example.org>... User unknown"},
	}})
}

// A mailer-daemon message with none of the known phrases is still a
// bounce when it quotes an enhanced status code.
func TestPlainDaemonWithReplyOnly(t *testing.T) {
	t.Parallel()
	raw := "From: MAILER-DAEMON@mx.example.org\nTo: bounces+tok@bounces.shop.example\nSubject: Returned mail: see transcript\n\n" +
		"   ----- Transcript -----\n... while talking to mx.example.org.:\n>>> RCPT To:<blocked@example.org>\n<<< 554 5.7.1 Rejected by reputation\n"
	r, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Recipients) != 1 || r.Recipients[0].Recipient != "blocked@example.org" || r.Recipients[0].Class != ClassBlock || r.Recipients[0].Code != 554 {
		t.Errorf("got %+v", r)
	}
}

func TestPlainNotBounces(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"auto-reply quoting bounce words": "From: a@example.org\nSubject: Out of Office: pedido\nContent-Type: text/plain\n\n" +
			"I am away. If your message could not be delivered to b@example.org, call me.\n",
		"x-autoreply header":    "From: a@example.org\nX-Autoreply: yes\nSubject: Re: pedido\n\nUser unknown? No, I am on holiday. c@example.org\n",
		"phrase but no address": "From: MAILER-DAEMON@mx.example.org\nSubject: Undelivered\n\nYour message could not be delivered.\n",
		"empty":                 "",
		"headers only":          "From: a@example.org\nSubject: hi\n",
		"daemon without code":   "From: MAILER-DAEMON@mx.example.org\nSubject: Returned mail\n\nsomething about x@example.org\n",
	}
	for name, raw := range tests {
		if r, err := Parse([]byte(raw)); !errors.Is(err, ErrNotABounce) {
			t.Errorf("%s: Parse = %+v, %v; want ErrNotABounce", name, r, err)
		}
	}
}

// corpusReport returns the expectations of a corpus file.
func corpusReport(t *testing.T, file string) *Report {
	t.Helper()
	for _, tc := range corpus {
		if tc.file == file {
			return tc.want
		}
	}
	t.Fatalf("%s is not in the corpus table", file)
	return nil
}

// A reply quoted under one recipient is not lent to another that has
// none; a reply quoted before all recipients is shared.
func TestPlainRepliesPerRecipient(t *testing.T) {
	t.Parallel()
	raw := "From: postmaster@contoso.com\nTo: bounces+tok@bounces.shop.example\nSubject: Undeliverable\n\n" +
		"Delivery has failed to these recipients or groups:\n\n" +
		"first@contoso.com\nThe email address you entered couldn't be found.\n\n" +
		"second@contoso.com\nRemote Server returned '552 5.2.2 mailbox full'\n"
	r, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	assertReport(t, r, &Report{Kind: KindPlain, Recipients: []RecipientReport{
		{Recipient: "first@contoso.com", Class: ClassHard, Diagnostic: "The email address you entered couldn't be found."},
		{Recipient: "second@contoso.com", Status: "5.2.2", Code: 552, Class: ClassSoft, Diagnostic: "552 5.2.2 mailbox full"},
	}})

	shared := "From: MAILER-DAEMON@mx.example.org\nSubject: Undelivered\n\n" +
		"Your message could not be delivered: 550 5.1.1 no such mailbox\n\n    a@example.org\n    b@example.org\n"
	r, err = Parse([]byte(shared))
	if err != nil {
		t.Fatal(err)
	}
	for _, rr := range r.Recipients {
		if rr.Status != "5.1.1" || rr.Class != ClassHard {
			t.Errorf("shared reply not applied: %+v", rr)
		}
	}
	if len(r.Recipients) != 2 {
		t.Errorf("recipients = %+v", r.Recipients)
	}
}
