package bounce

// originalHeader returns the header of the returned original message held
// by p: the enclosed message of a message/rfc822 part, or the content of a
// text/rfc822-headers part. ok is false for any other part.
func originalHeader(p *part) (header, bool) {
	switch {
	case isEnclosedMessage(p.mediaType):
		if len(p.children) == 1 {
			return p.children[0].header, true
		}
		h, _ := parseHeader(skipBlankLines(p.body))
		return h, true
	case isHeadersOnly(p.mediaType):
		h, _ := parseHeader(skipBlankLines(p.body))
		return h, true
	}
	return nil, false
}

// findOriginal returns the header of the original message returned with a
// report: first among the siblings of the report part (the third part of
// a multipart/report), else anywhere in the message outside the report.
func findOriginal(root, container *part) (header, bool) {
	if container != nil {
		for _, c := range container.children {
			if h, ok := originalHeader(c); ok {
				return h, true
			}
		}
	}
	var found header
	ok := false
	root.walk(func(p *part) bool {
		if ok {
			return false
		}
		if h, isOriginal := originalHeader(p); isOriginal {
			found, ok = h, true
			return false
		}
		return true
	})
	return found, ok
}

// findReport returns the first machine-readable report part
// (message/delivery-status, message/global-delivery-status or
// message/feedback-report) and the multipart that contains it. It does not
// look inside enclosed messages: a report quoted in a returned original is
// not this message's report.
func findReport(root *part) (report, container *part) {
	var visit func(p, parent *part)
	visit = func(p, parent *part) {
		if report != nil {
			return
		}
		switch p.mediaType {
		case "message/delivery-status", "message/global-delivery-status", "message/feedback-report":
			report, container = p, parent
			return
		}
		if isEnclosedMessage(p.mediaType) {
			return
		}
		for _, c := range p.children {
			visit(c, p)
		}
	}
	visit(root, nil)
	return report, container
}

// isDeliveryStatus reports whether mediaType is a DSN's status part.
func isDeliveryStatus(mediaType string) bool {
	return mediaType == "message/delivery-status" || mediaType == "message/global-delivery-status"
}

// originalMessageID returns the Message-ID of an original header, without
// angle brackets.
func originalMessageID(h header) string {
	return messageID(h.get("message-id"))
}
