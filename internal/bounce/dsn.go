package bounce

import "strings"

// dsnFields is what a message/delivery-status part says.
type dsnFields struct {
	recipients []RecipientReport
	envelopeID string // Original-Envelope-Id
	messageID  string // X-Original-Message-ID (Gmail), without brackets
}

// parseDSN reads a message/delivery-status part (RFC 3464 section 2): a
// per-message block, then one block per recipient. Blocks are told apart
// by their fields rather than their position, since some generators omit
// the per-message block or put recipient fields into it.
func parseDSN(status *part) dsnFields {
	var d dsnFields
	for _, block := range parseBlocks(status.body) {
		final := block.get("final-recipient")
		original := block.get("original-recipient")
		if final == "" && original == "" {
			if d.envelopeID == "" {
				d.envelopeID = decodeXtext(strings.TrimSpace(block.get("original-envelope-id")))
			}
			if d.messageID == "" {
				d.messageID = messageID(block.get("x-original-message-id"))
			}
			continue
		}
		if len(d.recipients) >= maxRecipients {
			break
		}
		d.recipients = append(d.recipients, dsnRecipient(block, final, original))
	}
	return d
}

// dsnRecipient builds the report of one per-recipient block.
func dsnRecipient(block header, final, original string) RecipientReport {
	r := RecipientReport{
		Recipient:         typedAddress(final, false),
		OriginalRecipient: typedAddress(original, true),
		Action:            strings.ToLower(strings.TrimSpace(block.get("action"))),
		Status:            findEnhancedCode(block.get("status")),
	}
	if r.Recipient == "" {
		r.Recipient = r.OriginalRecipient
	}
	diagnostic := block.get("diagnostic-code")
	if diagnostic != "" {
		r.Diagnostic = cleanDiagnostic(withoutDiagnosticType(diagnostic))
		if reply, ok := findReply(r.Diagnostic); ok {
			r.Code = reply.code
			if r.Status == "" {
				r.Status = reply.status
			}
		}
	}
	// D69: Exim always writes "Status: 5.0.0"; the code that matters is
	// in its Diagnostic-Code ("smtp; 550 5.1.1 ...").
	r.Status = RefineStatus(r.Status, r.Diagnostic)
	r.Class = Classify(r.Status, r.Action, r.Diagnostic)
	return r
}

// withoutDiagnosticType removes the diagnostic type ("smtp;",
// "X-Postfix;") that starts a Diagnostic-Code value.
func withoutDiagnosticType(v string) string {
	v = strings.TrimSpace(v)
	semi := strings.IndexByte(v, ';')
	if semi > 0 && semi <= 32 && !strings.ContainsAny(v[:semi], " \t") {
		return strings.TrimSpace(v[semi+1:])
	}
	return v
}
