package store

import (
	"encoding/json"
	"strings"
)

// receivedEventType is the webhook event of a received message (D75).
const receivedEventType = "email.received"

// withoutReceivedMessage empties, in an email.received payload whose
// message came from the address, every field that the message gave (see
// emptyReceived). Erasure deletes such a message (D78), so its webhook log
// must not keep a copy of it. Any other document is returned unchanged.
func (x *Eraser) withoutReceivedMessage(doc string) string {
	return emptyReceived(doc, func(data map[string]any) bool {
		from, _ := data["from"].(string)
		return x.isAddress(from)
	})
}

// emptyReceived empties, in an email.received payload whose data match
// accepts, every field that the message gave: its sender (shown as
// ErasedAddress), recipients, subject, bodies and attachments, and the
// email it replied to. What stays is that a message arrived (event id,
// type, time, the deleted message's id and its SPF, DKIM and DMARC
// results), every field still present and of its type, so that a
// receiver's parser still reads it. Any other document is returned
// unchanged.
func emptyReceived(doc string, match func(data map[string]any) bool) string {
	var event map[string]any
	if err := json.Unmarshal([]byte(doc), &event); err != nil || event["type"] != receivedEventType {
		return doc
	}
	data, ok := event["data"].(map[string]any)
	if !ok || !match(data) {
		return doc
	}
	data["from"] = ErasedAddress
	data["to"], data["cc"], data["attachments"] = []any{}, []any{}, []any{}
	data["subject"], data["text"], data["html"] = "", "", ""
	data["inReplyToEmailId"] = nil
	delete(data, "truncated")
	out, err := json.Marshal(event)
	if err != nil {
		return doc
	}
	return string(out)
}

// isAddress reports whether an address as a payload writes it, alone or
// after a display name ("Pat <pat@x.example>"), is the erased one.
func (x *Eraser) isAddress(s string) bool {
	if _, angle, ok := strings.Cut(s, "<"); ok && strings.HasSuffix(angle, ">") {
		s = strings.TrimSuffix(angle, ">")
	}
	return strings.EqualFold(strings.TrimSpace(s), x.addr)
}
