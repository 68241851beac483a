package bounce

// Parse reads a message that arrived at the bounce address and returns
// what it reports: a DSN (multipart/report with message/delivery-status),
// an ARF complaint (message/feedback-report), or a plain-text bounce
// recognised by its wording and quoted SMTP replies. It returns
// ErrNotABounce for anything else. Only the first MaxInputSize bytes and
// MaxParts MIME parts are read.
func Parse(raw []byte) (*Report, error) {
	if len(raw) > MaxInputSize {
		raw = raw[:MaxInputSize]
	}
	root := parseMessage(raw)
	if report, container := findReport(root); report != nil {
		original, hasOriginal := findOriginal(root, container)
		if isDeliveryStatus(report.mediaType) {
			recipients, envelopeID := parseDSN(report)
			if len(recipients) > 0 {
				r := &Report{Kind: KindDSN, Recipients: recipients, OriginalEnvelopeID: envelopeID}
				if hasOriginal {
					r.OriginalMessageID = originalMessageID(original)
				}
				return r, nil
			}
			// A status part without recipient fields: fall through to the
			// text, which may still say who failed.
		} else {
			r := parseARF(report, original, hasOriginal)
			if r.FeedbackType != "" || len(r.Recipients) > 0 || r.OriginalMessageID != "" {
				return r, nil
			}
		}
	}
	if r := parsePlain(root); r != nil {
		return r, nil
	}
	return nil, ErrNotABounce
}
