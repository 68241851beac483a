package bounce

import "strings"

// Classify tells what a report says happened to one recipient, from the DSN
// Action, the enhanced status code and the remote server's diagnostic
// (whichever are known; empty strings are fine). When status holds no
// enhanced code, one found in diagnostic is used, then the class digit of
// the diagnostic's basic SMTP code. It returns "" when nothing classifies.
//
//   - delivered, relayed, expanded: ClassDelivered (D25 success DSN).
//   - delayed, or a 4.x.x that is not final: ClassDelayed.
//   - failed with 4.x.x: ClassSoft (the remote MTA gave up retrying a
//     temporary error, e.g. a full mailbox).
//   - 5.x.x: see permanentClass (D69): ClassHard when the address is
//     blamed, ClassBlock for a provider's block, ClassSender when the
//     sending side's configuration is, ClassSoft for a full mailbox or a
//     refused content.
//
// A status X.0.0 is first refined by the enhanced code in diagnostic
// (RefineStatus).
func Classify(status, action, diagnostic string) Class {
	action = strings.ToLower(strings.TrimSpace(action))
	switch action {
	case "delivered", "relayed", "expanded":
		return ClassDelivered
	case "delayed":
		return ClassDelayed
	}
	diag := strings.ToLower(diagnostic)
	code := findEnhancedCode(status)
	var class byte
	if code != "" {
		code = RefineStatus(code, diagnostic)
		class = code[0]
	} else if r, ok := findReply(diagnostic); ok {
		code = r.status
		if r.code != 0 {
			class = byte('0' + r.code/100)
		} else {
			class = r.status[0]
		}
	}
	failed := action == "failed"
	switch class {
	case '2':
		if !failed {
			return ClassDelivered
		}
		return permanentClass(code, diag)
	case '4':
		if failed {
			return ClassSoft
		}
		return ClassDelayed
	case '5':
		return permanentClass(code, diag)
	}
	if failed {
		return permanentClass(code, diag)
	}
	return ""
}

// permanentClass classifies a permanent failure by its enhanced code (may
// be empty) and lowercased diagnostic, after D69: only what blames the
// recipient is ClassHard.
func permanentClass(code, diag string) Class {
	sd := subjectDetail(code)
	switch {
	case sd == "2.2" || sd == "2.3":
		// Mailbox full, or message too large for it: this message
		// failed, the address did not.
		return ClassSoft
	case senderAuthCode(sd):
		return ClassSender // the sender's SPF, DKIM, DMARC or PTR
	case strings.HasPrefix(sd, "7."):
		// X.7.1 and X.7.0 carry both blocks and authentication
		// failures; only the text tells them apart.
		if senderCauseInWords(diag) != "" {
			return ClassSender
		}
		return ClassBlock // blocklists, reputation, provider policy
	case sd == "1.7" || sd == "1.8":
		// Our sender address was refused: the recipient's address is
		// fine, so this must not suppress it.
		return ClassSender
	case strings.HasPrefix(sd, "1.") || strings.HasPrefix(sd, "2."):
		if senderCauseInWords(diag) == "sender_address" {
			return ClassSender // Postfix: "550 5.1.0 <...>: Sender address rejected"
		}
		return ClassHard // addressing or mailbox status: the address is wrong
	case strings.HasPrefix(sd, "3.") || strings.HasPrefix(sd, "4.") || strings.HasPrefix(sd, "5."):
		// Mail system, routing, protocol (a refused HELO); unless the
		// text blames the mailbox, as Outlook.com's "550 5.5.0 Requested
		// action not taken: mailbox unavailable" and Exchange Online's
		// "550 5.4.1 Recipient address rejected: Access denied" do.
		if senderCauseInWords(diag) == "" && containsAny(diag, recipientWording) {
			return ClassHard
		}
		return ClassSender
	case strings.HasPrefix(sd, "6."):
		return ClassSoft // the content was refused, not the address
	}
	// X.0.0 (nothing to refine it with), no code, or an unknown subject:
	// the text decides.
	switch {
	case containsAny(diag, mailboxFullWording):
		return ClassSoft
	case senderCauseInWords(diag) != "":
		return ClassSender
	case containsAny(diag, blockWording):
		return ClassBlock
	}
	return ClassHard
}

// mailboxFullWording marks a full mailbox in servers that do not send
// x.2.2.
var mailboxFullWording = []string{
	"mailbox full", "mailbox is full", "over quota", "quota exceeded", "exceeded storage",
	"exceeds quota", "insufficient storage", "mailbox size limit", "full mailbox", "out of storage",
	"over its quota", "over the quota",
}

// recipientWording marks a reply whose text blames the recipient's mailbox.
var recipientWording = []string{
	"recipient address rejected", "mailbox unavailable", "user unknown", "unknown user", "no such user",
	"recipient not found", "does not exist", "mailbox not found", "unknown recipient", "invalid recipient",
}

// blockWording marks a refusal for policy, reputation or content reasons.
var blockWording = []string{
	"policy", "spam", "blocked", "blacklist", "blocklist", "block list", "black list",
	"denylist", "dnsbl", "reputation", "barracuda", "spamcop", "virus", "malware",
	"phish", "content filter",
}

// containsAny reports whether s contains one of words.
func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}
