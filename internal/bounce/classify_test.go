package bounce

import "testing"

// TestClassify covers the rules of Classify, which decide D26's bounceType
// and D46's automatic suppression.
func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, status, action, diagnostic string
		want                             Class
	}{
		{"hard user unknown", "5.1.1", "failed", "550 5.1.1 User unknown", ClassHard},
		{"routing 5.4.1 blames the sending side (D69)", "5.4.1", "failed", "550 5.4.1 Unable to relay", ClassSender},
		{"5.4.1 whose text blames the recipient (Exchange Online)", "5.4.1", "failed", "550 5.4.1 Recipient address rejected: Access denied", ClassHard},
		{"hard bare 5.0.0", "5.0.0", "failed", "550 5.0.0 mailbox unavailable", ClassHard},
		{"address status wins over wording", "5.1.1", "failed", "550 5.1.1 spam trap, user unknown", ClassHard},
		{"policy 5.7.1", "5.7.1", "failed", "550 5.7.1 Message rejected", ClassBlock},
		{"dmarc 5.7.26 is the sender's authentication (D69)", "5.7.26", "failed", "550 5.7.26 Unauthenticated email", ClassSender},
		{"block wording without 5.7", "5.0.0", "failed", "554 5.0.0 Client host blocked using zen.spamhaus.org", ClassBlock},
		{"spam wording, code only", "", "failed", "554 Message rejected as spam", ClassBlock},
		{"sender address refused is not the recipient's fault", "5.1.8", "failed", "553 5.1.8 Sender address rejected: Domain not found", ClassSender},
		{"mailbox full 5.2.2", "5.2.2", "failed", "552 5.2.2 Mailbox full", ClassSoft},
		{"message too big 5.3.4: mail system status, no suppression (D69)", "5.3.4", "failed", "552 5.3.4 Message size exceeds fixed limit", ClassSender},
		{"quota wording without x.2.2", "5.0.0", "failed", "552 5.0.0 Quota exceeded for this user", ClassSoft},
		{"final 4.2.2 is soft", "4.2.2", "failed", "452 4.2.2 Mailbox full", ClassSoft},
		{"4.4.7 expired is soft", "4.4.7", "failed", "", ClassSoft},
		{"delayed 4.2.2", "4.2.2", "delayed", "452 4.2.2 Mailbox full", ClassDelayed},
		{"delayed without status", "", "delayed", "", ClassDelayed},
		{"4.x without action", "4.4.1", "", "", ClassDelayed},
		{"delayed action wins over 5.x", "5.1.1", "delayed", "", ClassDelayed},
		{"delivered", "2.0.0", "delivered", "250 2.0.0 OK", ClassDelivered},
		{"relayed", "2.0.0", "relayed", "", ClassDelivered},
		{"expanded", "2.0.0", "Expanded", "", ClassDelivered},
		{"2.x without action", "2.0.0", "", "", ClassDelivered},
		{"status in diagnostic only", "", "failed", "smtp; 550 5.1.1 <x@example.org>: unknown", ClassHard},
		{"status with comment", "5.1.1 (bad destination mailbox address)", "FAILED", "", ClassHard},
		{"basic code only, 4xx", "", "", "451 Try again later", ClassDelayed},
		{"basic code only, 5xx", "", "", "550 No such user here", ClassHard},
		{"failed without any code", "", "failed", "", ClassHard},
		{"nothing known", "", "", "", ""},
		{"prose is not a code", "", "", "we have 550 apples", ""},
	}
	for _, tc := range tests {
		if got := Classify(tc.status, tc.action, tc.diagnostic); got != tc.want {
			t.Errorf("%s: Classify(%q, %q, %q) = %q, want %q", tc.name, tc.status, tc.action, tc.diagnostic, got, tc.want)
		}
	}
}
