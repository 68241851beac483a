package app

import (
	"fmt"
	"strings"
	"testing"

	"github.com/carteiro/carteiro/internal/bounce"
	"github.com/carteiro/carteiro/internal/mta"
)

// replyCase is one real refusal, as a provider's server answers it over
// SMTP or, for "dsn", as its MTA reports it in a delivery status
// notification (Status and Diagnostic-Code).
type replyCase struct {
	provider string
	via      string // "smtp" or "dsn"
	code     int
	status   string // the enhanced code sent (SMTP) or the DSN's Status
	text     string // reply text (SMTP) or Diagnostic-Code after "smtp;"
	outcome  string // bounced:hard, bounced:soft, bounced:block, failed, deferred
	reason   string // the automatic suppression's reason, "" for none
	cause    string // for failed: what domain health names
}

// realReplies are replies of Gmail, Outlook, Yahoo, Postfix and Exim as
// their servers write them (D69).
var realReplies = []replyCase{
	{"gmail", "smtp", 550, "5.1.1", "The email account that you tried to reach does not exist. Please try double-checking the recipient's email address for typos or unnecessary spaces. For more information, go to https://support.google.com/mail/?p=NoSuchUser 41be03b00d2f7-5e2ec2a1c4fsi12345a12.100 - gsmtp", "bounced:hard", "mailbox_not_found", ""},
	{"gmail", "smtp", 550, "5.2.1", "The email account that you tried to reach is inactive. For more information, go to https://support.google.com/mail/?p=DisabledUser - gsmtp", "bounced:hard", "mailbox_not_found", ""},
	{"gmail", "smtp", 552, "5.2.2", "The recipient's inbox is out of storage space. Please direct the recipient to https://support.google.com/mail/?p=OverQuotaTemp - gsmtp", "bounced:soft", "", ""},
	{"gmail", "smtp", 550, "5.7.1", "[192.0.2.1] Our system has detected that this message is likely unsolicited mail. To reduce the amount of spam sent to Gmail, this message has been blocked. For more information, go to https://support.google.com/mail/?p=UnsolicitedMessageError - gsmtp", "bounced:block", "isp_block", ""},
	{"gmail", "smtp", 550, "5.7.26", "This mail has been blocked because the sender is unauthenticated. Gmail requires all senders to authenticate with either SPF or DKIM. Authentication results: DKIM = did not pass SPF [shop.example] with ip: [192.0.2.1] = did not pass - gsmtp", "failed", "", "spf"},
	{"gmail", "smtp", 550, "5.7.25", "[192.0.2.1] The IP address sending this message does not have a PTR record setup, or the corresponding forward DNS entry does not point to the sending IP. - gsmtp", "failed", "", "ptr"},
	{"gmail", "smtp", 421, "4.7.28", "[192.0.2.1] Our system has detected an unusual rate of unsolicited mail originating from your IP address. - gsmtp", "deferred", "", ""},
	{"outlook", "smtp", 550, "5.5.0", "Requested action not taken: mailbox unavailable (S2017062302). [AM0PR01MB1234.eurprd01.prod.exchangelabs.com]", "bounced:hard", "bounce", ""},
	{"outlook", "smtp", 550, "5.1.10", "RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup", "bounced:hard", "mailbox_not_found", ""},
	{"outlook", "smtp", 550, "5.4.1", "Recipient address rejected: Access denied. For more information see https://aka.ms/EXOSmtpErrors [BN1NAM02FT012.eop-nam02.prod.protection.outlook.com]", "bounced:hard", "bounce", ""},
	{"outlook", "smtp", 550, "5.7.1", "Unfortunately, messages from [192.0.2.1] weren't sent. Please contact your Internet service provider since part of their network is on our block list (S3150). You can also refer your provider to http://mail.live.com/mail/troubleshooting.aspx#errors.", "bounced:block", "isp_block", ""},
	{"outlook", "smtp", 550, "5.7.606", "Access denied, banned sending IP [192.0.2.1]. To request removal from this list please visit https://sender.office.com/ and follow the directions.", "bounced:block", "isp_block", ""},
	{"outlook", "smtp", 550, "5.7.509", "Access denied, sending domain shop.example does not pass DMARC verification and has a DMARC policy of reject.", "failed", "", "dmarc"},
	{"yahoo", "smtp", 554, "", "delivery error: dd This user doesn't have a yahoo.com account (nobody@yahoo.com) [0] - mta1001.mail.gq1.yahoo.com", "bounced:hard", "bounce", ""},
	{"yahoo", "smtp", 554, "5.7.9", "Message not accepted for policy reasons.  See https://postmaster.yahooinc.com/error-codes", "bounced:block", "isp_block", ""},
	{"yahoo", "smtp", 553, "5.7.1", "[BL21] Connections will not be accepted from 192.0.2.1, because the ip is in Spamhaus's list; see https://postmaster.yahooinc.com/error-codes", "bounced:block", "isp_block", ""},
	{"yahoo", "smtp", 550, "5.7.9", "This mail has been blocked because the sender is unauthenticated. Yahoo requires all senders to authenticate with either SPF or DKIM.", "failed", "", "spf"},
	{"yahoo", "smtp", 421, "4.7.0", "[TSS04] Messages from 192.0.2.1 temporarily deferred due to unexpected volume or user complaints - 4.16.55.1; see https://postmaster.yahooinc.com/error-codes", "deferred", "", ""},
	{"postfix", "smtp", 550, "5.1.1", "<carol@example.net>: Recipient address rejected: User unknown in virtual mailbox table", "bounced:hard", "mailbox_not_found", ""},
	{"postfix", "smtp", 504, "5.5.2", "<vm>: Helo command rejected: need fully-qualified hostname", "failed", "", "helo"},
	{"postfix", "smtp", 554, "5.7.1", "Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/192.0.2.1", "bounced:block", "isp_block", ""},
	{"postfix", "smtp", 550, "5.7.1", "<carol@example.net>: Recipient address rejected: Message rejected due to: SPF fail - not authorized.", "failed", "", "spf"},
	{"postfix", "smtp", 550, "5.7.25", "Client host rejected: cannot find your hostname, [192.0.2.1]", "failed", "", "ptr"},
	{"postfix", "smtp", 550, "5.1.0", "<bounces+token@bounces.shop.example>: Sender address rejected: undeliverable address: host mx.shop.example said: 550 5.1.1 unknown user", "failed", "", "sender_address"},
	{"postfix", "smtp", 552, "5.2.2", "<carol@example.net>: Recipient address rejected: Mailbox is full", "bounced:soft", "", ""},
	{"postfix", "smtp", 450, "4.7.25", "Client host rejected: cannot find your hostname, [192.0.2.1]", "deferred", "", ""},
	{"exim", "dsn", 550, "5.0.0", "550 5.1.1 <carol@example.net>: Recipient address rejected: User unknown in local recipient table", "bounced:hard", "mailbox_not_found", ""},
	{"exim", "dsn", 550, "5.0.0", "550 5.7.1 Service unavailable; client [192.0.2.1] blocked using bl.spamcop.net", "bounced:block", "isp_block", ""},
	{"exim", "dsn", 550, "5.0.0", "550 5.5.2 <vm>: Helo command rejected: need fully-qualified hostname", "failed", "", "helo"},
	{"exim", "smtp", 550, "", "Unrouteable address", "bounced:hard", "bounce", ""},
	{"exim", "smtp", 550, "", "Rejected because 192.0.2.1 is in a black list at zen.spamhaus.org", "bounced:block", "isp_block", ""},
	{"exim", "smtp", 550, "", "Verification failed for <bounces+token@bounces.shop.example> Unrouteable address Sender verify failed", "failed", "", "sender_address"},
}

// TestReplyClassesOfRealServers is D69's table: who a reply blames decides
// whether the recipient bounces (and is suppressed, and why) or fails
// without suppression; an X.0.0 status is refined by the code in its
// text.
func TestReplyClassesOfRealServers(t *testing.T) {
	for _, tc := range realReplies {
		name := fmt.Sprintf("%s %s %d %s", tc.provider, tc.via, tc.code, tc.status)
		var rr bounce.RecipientReport
		switch tc.via {
		case "smtp":
			res := mta.Result{Recipient: "carol@example.net", Code: tc.code, Enhanced: tc.status, Message: tc.text,
				Class: mta.Classify(tc.code, tc.status)}
			if res.Enhanced == "" {
				res.Enhanced = fmt.Sprintf("%d.0.0", tc.code/100) // as mta derives it
			}
			if res.Class == mta.ClassTemporary {
				if tc.outcome != "deferred" {
					t.Errorf("%s: deferred, want %s", name, tc.outcome)
				}
				continue
			}
			rr = replyReport(res.Recipient, res)
		case "dsn":
			rep, err := bounce.Parse([]byte(minimalDSN(tc.status, tc.text)))
			if err != nil || len(rep.Recipients) != 1 {
				t.Fatalf("%s: parse: %v %+v", name, err, rep)
			}
			rr = rep.Recipients[0]
		}
		outcome := "bounced:" + string(rr.Class)
		if rr.Class == bounce.ClassSender {
			outcome = "failed"
		}
		cause := ""
		if outcome == "failed" {
			cause = bounce.Cause(rr.Status, rr.Diagnostic)
		}
		if outcome != tc.outcome || suppressionReason(rr) != tc.reason || cause != tc.cause {
			t.Errorf("%s %q:\n got %s, suppression %q, cause %q (status %s)\nwant %s, suppression %q, cause %q",
				name, tc.text, outcome, suppressionReason(rr), cause, rr.Status, tc.outcome, tc.reason, tc.cause)
		}
		if tc.status == "5.0.0" && strings.Contains(tc.text, " 5.1.1 ") && rr.Status != "5.1.1" {
			t.Errorf("%s: status %s, want the 5.1.1 of the diagnostic (X.0.0 refined)", name, rr.Status)
		}
	}
}

// minimalDSN is a delivery status notification with one failed recipient.
func minimalDSN(status, diagnostic string) string {
	return strings.ReplaceAll(`From: Mail Delivery System <Mailer-Daemon@mx.example.net>
To: bounces+token@bounces.shop.example
Subject: Mail delivery failed: returning message to sender
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary=b1

--b1
Content-Type: text/plain

A message that you sent could not be delivered.

--b1
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.net

Action: failed
Final-Recipient: rfc822;carol@example.net
Status: `+status+`
Diagnostic-Code: smtp; `+diagnostic+`

--b1--
`, "\n", "\r\n")
}
