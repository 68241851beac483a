package app

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// eventEnvelope is D47's webhook body, {id, type, createdAt, data}. A
// struct rather than a map so that "id" is written first: the delivery
// worker reads the event id (X-Service-Event-Id) from the stored body on
// every attempt, and with the id first it stops there instead of parsing
// a received email's text and HTML (D75) each time.
type eventEnvelope struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	CreatedAt string `json:"createdAt"`
	Data      any    `json:"data"`
}

// marshalEvent is the bytes of an event envelope.
func marshalEvent(id, typ, createdAt string, data any) ([]byte, error) {
	return json.Marshal(eventEnvelope{ID: id, Type: typ, CreatedAt: createdAt, Data: data})
}

// payloadEventID is the top-level "id" of a stored webhook body. Bodies
// written by marshalEvent have it first; bodies stored by earlier
// versions (a map: keys in alphabetical order) have it after "data",
// which is skipped without being decoded into values. A body without an
// id gives "", as decoding it into a struct did.
func payloadEventID(payload []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(payload))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", fmt.Errorf("event body: want an object: %v", err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", fmt.Errorf("event body: %w", err)
		}
		if key, _ := tok.(string); key == "id" {
			var id string
			if err := dec.Decode(&id); err != nil {
				return "", fmt.Errorf("event body id: %w", err)
			}
			return id, nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", fmt.Errorf("event body: %w", err)
		}
	}
	return "", nil
}
