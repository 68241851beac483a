package carteiro

import (
	"bytes"
	"encoding/json"
)

// ContactMetadata is a contact's metadata: one JSON object, kept as the
// compact text it arrived as (nil for none). It is stored and answered as
// that text and decoded only where its values are used, to render a
// broadcast: a bulk import of 10,000 contacts would otherwise decode every
// object and encode it twice. Numbers keep their digits exactly.
type ContactMetadata []byte

// NewContactMetadata checks that raw (valid JSON, as decoded from a request
// body) is an object of at most MaxContactMetadata bytes once compacted,
// and returns it compacted. field names the metadata in errors.
func NewContactMetadata(field string, raw []byte) (ContactMetadata, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, Invalid(field, "invalid_type")
	}
	var b bytes.Buffer
	b.Grow(len(trimmed))
	if err := json.Compact(&b, trimmed); err != nil {
		return nil, Invalid(field, "invalid_value")
	}
	if b.Len() > MaxContactMetadata {
		return nil, Invalid(field, "too_large")
	}
	return ContactMetadata(b.Bytes()), nil
}

// JSON is the object's text, {} for none.
func (m ContactMetadata) JSON() []byte {
	if len(m) == 0 {
		return []byte("{}")
	}
	return m
}

// Object decodes the object, its members in the order they were sent;
// none is an empty object.
func (m ContactMetadata) Object() (*JSONObject, error) {
	if len(m) == 0 {
		return NewJSONObject(0), nil
	}
	return ParseJSONObject(m)
}

// Map decodes the object; none is an empty map.
func (m ContactMetadata) Map() (map[string]any, error) {
	out := map[string]any{}
	if len(m) == 0 {
		return out, nil
	}
	if err := json.Unmarshal(m, &out); err != nil {
		return nil, err
	}
	return out, nil
}
