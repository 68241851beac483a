package bounce

// Parse reads a message that arrived at the bounce address and returns
// what it reports: a DSN (multipart/report with message/delivery-status),
// an ARF complaint (message/feedback-report), or a plain-text bounce
// recognised by its wording and quoted SMTP replies. It returns
// ErrNotABounce for anything else. Only the first MaxInputSize bytes and
// MaxParts MIME parts are read. Every string in the report is valid UTF-8
// without control characters.
func Parse(raw []byte) (*Report, error) {
	if len(raw) > MaxInputSize {
		raw = raw[:MaxInputSize]
	}
	root := parseMessage(raw)
	if report, container := findReport(root); report != nil {
		original, hasOriginal := findOriginal(root, container)
		if isDeliveryStatus(report.mediaType) {
			d := parseDSN(report)
			if len(d.recipients) > 0 {
				r := &Report{Kind: KindDSN, Recipients: d.recipients, OriginalEnvelopeID: d.envelopeID}
				if hasOriginal {
					r.OriginalMessageID = originalMessageID(original)
				}
				if r.OriginalMessageID == "" {
					r.OriginalMessageID = d.messageID
				}
				return sanitize(withReturnPaths(withReplyTarget(r, root.header), root.header, original)), nil
			}
			// A status part without recipient fields: fall through to the
			// text, which may still say who failed.
		} else {
			r := parseARF(report, original, hasOriginal)
			if r.FeedbackType != "" || len(r.Recipients) > 0 || r.OriginalMessageID != "" {
				return sanitize(withReturnPaths(r, root.header, original)), nil
			}
		}
	}
	if r := parsePlain(root); r != nil {
		original, _ := findOriginal(root, nil)
		return sanitize(withReturnPaths(withReplyTarget(r, root.header), root.header, original)), nil
	}
	return nil, ErrNotABounce
}

// withReplyTarget fills a missing OriginalMessageID from the bounce's own
// In-Reply-To: bounces that return no copy of the original (Outlook,
// Gmail) still answer it, so In-Reply-To names the message that bounced.
func withReplyTarget(r *Report, h header) *Report {
	if r.OriginalMessageID == "" {
		r.OriginalMessageID = messageID(h.get("in-reply-to"))
	}
	return r
}

// withReturnPaths fills r.ReturnPaths from the report's own header and the
// returned original's (nil when there is none).
func withReturnPaths(r *Report, own, original header) *Report {
	for _, v := range []string{mailFrom(own.get("return-path")), mailFrom(original.get("return-path")), r.OriginalMailFrom} {
		if v != "" {
			r.ReturnPaths = appendUnique(r.ReturnPaths, v)
		}
	}
	return r
}
