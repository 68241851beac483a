package bounce

import "strings"

// parseARF builds the report of an abuse feedback report (RFC 5965): the
// Feedback-Type and Original-Mail-From of the message/feedback-report part
// and the complaining recipients, from Original-Rcpt-To or else the To of
// the returned original. Either may be missing (providers redact); the
// report is still useful through OriginalMessageID and OriginalMailFrom.
func parseARF(feedback *part, original header, hasOriginal bool) *Report {
	var fields header
	for _, block := range parseBlocks(feedback.body) {
		fields = append(fields, block...)
	}
	r := &Report{
		Kind:             KindARF,
		FeedbackType:     strings.ToLower(strings.TrimSpace(fields.get("feedback-type"))),
		OriginalMailFrom: mailFrom(fields.get("original-mail-from")),
	}
	var recipients []string
	for _, v := range fields.values("original-rcpt-to") {
		recipients = appendUnique(recipients, normalizeAddress(v))
	}
	guessed := false
	if hasOriginal {
		r.OriginalMessageID = originalMessageID(original)
		if r.OriginalMailFrom == "" {
			r.OriginalMailFrom = mailFrom(original.get("return-path"))
		}
		if len(recipients) == 0 {
			recipients, guessed = addressList(original.get("to")), true
		}
	}
	for _, addr := range recipients {
		r.Recipients = append(r.Recipients, RecipientReport{Recipient: addr, Class: ClassComplaint, Guessed: guessed})
	}
	return r
}
