package bounce

import (
	"strings"
	"unicode"
)

// sanitize makes every string of r valid UTF-8 without control
// characters. Reports come from arbitrary bytes, and their strings end up
// in database columns and JSON (D26 timeline metadata), where a NUL byte
// or a broken sequence would be refused or mangled.
func sanitize(r *Report) *Report {
	r.OriginalMessageID = cleanText(r.OriginalMessageID)
	r.OriginalEnvelopeID = cleanText(r.OriginalEnvelopeID)
	r.FeedbackType = cleanText(r.FeedbackType)
	r.OriginalMailFrom = cleanText(r.OriginalMailFrom)
	for i := range r.ReturnPaths {
		r.ReturnPaths[i] = cleanText(r.ReturnPaths[i])
	}
	for i := range r.Recipients {
		rr := &r.Recipients[i]
		rr.Recipient = cleanText(rr.Recipient)
		rr.OriginalRecipient = cleanText(rr.OriginalRecipient)
		rr.Action = cleanText(rr.Action)
		rr.Diagnostic = cleanText(rr.Diagnostic)
	}
	return r
}

// cleanText replaces invalid UTF-8 with U+FFFD and drops control
// characters (C0, DEL and C1).
func cleanText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(c rune) rune {
		if unicode.IsControl(c) {
			return -1
		}
		return c
	}, s)
}
