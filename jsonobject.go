package carteiro

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
)

// JSONObject is a JSON object that keeps its members in the order they
// were written. Template variables are one: handlebars.js's {{#each}} over
// an object follows the key order of the object the caller's JSON parsed
// into, and a Go map has none (issue 24, item 6). Nested objects decode as
// *JSONObject too, arrays as []any, numbers as float64, the rest as
// encoding/json decodes into any. A repeated key keeps its first place and
// its last value, as JSON.parse does. The nil *JSONObject is the empty
// object.
type JSONObject struct {
	keys   []string
	values map[string]any
}

// NewJSONObject returns an empty object with room for n members.
func NewJSONObject(n int) *JSONObject {
	return &JSONObject{keys: make([]string, 0, n), values: make(map[string]any, n)}
}

// JSONObjectFromMap is m as an object, its keys in sorted order (a Go map
// has no other).
func JSONObjectFromMap(m map[string]any) *JSONObject {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	o := NewJSONObject(len(keys))
	for _, k := range keys {
		o.Set(k, m[k])
	}
	return o
}

// Len is the number of members.
func (o *JSONObject) Len() int {
	if o == nil {
		return 0
	}
	return len(o.keys)
}

// Keys are the member names in order; the caller must not change them.
func (o *JSONObject) Keys() []string {
	if o == nil {
		return nil
	}
	return o.keys
}

// Get is the member's value and whether the object has it.
func (o *JSONObject) Get(key string) (any, bool) {
	if o == nil {
		return nil, false
	}
	v, ok := o.values[key]
	return v, ok
}

// Set gives key the value v, at the end when it is a new member.
func (o *JSONObject) Set(key string, v any) {
	if o.values == nil {
		o.values = map[string]any{}
	}
	if _, ok := o.values[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.values[key] = v
}

// Merged returns a new object: o's members, then over them those of
// others in turn, as JavaScript's {...o, ...other} does (a member already
// present keeps its place and takes the later value).
func (o *JSONObject) Merged(others ...*JSONObject) *JSONObject {
	n := o.Len()
	for _, other := range others {
		n += other.Len()
	}
	out := NewJSONObject(n)
	for _, src := range append([]*JSONObject{o}, others...) {
		for _, k := range src.Keys() {
			out.Set(k, src.values[k])
		}
	}
	return out
}

// MarshalJSON writes the members in order.
func (o *JSONObject) MarshalJSON() ([]byte, error) {
	if o == nil {
		return []byte("{}"), nil
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		key, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b.Write(key)
		b.WriteByte(':')
		val, err := json.Marshal(o.values[k])
		if err != nil {
			return nil, err
		}
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads one JSON object, keeping its members' order at every
// depth. Anything but an object is a *json.UnmarshalTypeError, so a
// request's decoder names the field (422 invalid_type).
func (o *JSONObject) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != json.Delim('{') {
		return &json.UnmarshalTypeError{Value: jsonKind(tok), Type: reflect.TypeFor[JSONObject]()}
	}
	obj, err := decodeObject(dec)
	if err != nil {
		return err
	}
	*o = *obj
	return nil
}

// ParseJSONObject decodes data, which must be one JSON object.
func ParseJSONObject(data []byte) (*JSONObject, error) {
	o := &JSONObject{}
	if err := o.UnmarshalJSON(data); err != nil {
		return nil, err
	}
	return o, nil
}

// decodeObject reads the members of an object whose '{' was read.
func decodeObject(dec *json.Decoder) (*JSONObject, error) {
	o := NewJSONObject(0)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("json: object key is not a string")
		}
		v, err := decodeValue(dec)
		if err != nil {
			return nil, err
		}
		o.Set(key, v)
	}
	if _, err := dec.Token(); err != nil { // '}'
		return nil, err
	}
	return o, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		return decodeObject(dec)
	case json.Delim('['):
		arr := []any{}
		for dec.More() {
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		if _, err := dec.Token(); err != nil { // ']'
			return nil, err
		}
		return arr, nil
	}
	if d, ok := tok.(json.Delim); ok {
		return nil, fmt.Errorf("json: unexpected %q", rune(d))
	}
	return tok, nil
}

func jsonKind(tok json.Token) string {
	switch tok.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case float64:
		return "number"
	case string:
		return "string"
	}
	if tok == json.Delim('[') {
		return "array"
	}
	return "value"
}
