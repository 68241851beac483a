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
//   - 5.x.x: see permanentClass: ClassBlock for 5.7.x, sender-address
//     rejections and policy wording; ClassSoft for a full mailbox or a
//     message too large; ClassHard otherwise (D46).
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
// be empty) and lowercased diagnostic.
func permanentClass(code, diag string) Class {
	subjectDetail := ""
	if len(code) > 2 {
		subjectDetail = code[2:]
	}
	switch {
	case strings.HasPrefix(subjectDetail, "7."):
		return ClassBlock // security or policy status (RFC 3463 X.7.XXX)
	case subjectDetail == "1.7" || subjectDetail == "1.8":
		// Our sender address was refused: the recipient's address is
		// fine, so this must not become mailbox_not_found (D46).
		return ClassBlock
	case subjectDetail == "2.2" || subjectDetail == "2.3" || subjectDetail == "3.4":
		// Mailbox full, or message too large: this message failed, the
		// address did not.
		return ClassSoft
	case strings.HasPrefix(subjectDetail, "1."):
		return ClassHard // addressing status: the address is wrong
	case containsAny(diag, mailboxFullWording):
		return ClassSoft
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

// blockWording marks a refusal for policy, reputation or content reasons.
var blockWording = []string{
	"policy", "spam", "blocked", "blacklist", "blocklist", "block list", "black list",
	"denylist", "dnsbl", "reputation", "barracuda", "spamcop", "virus", "malware",
	"phish", "content filter", "dmarc",
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
