package httpapi

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"

	"github.com/carteiro/carteiro"
)

// largeBody is the size from which DecodeJSON decodes in place rather than
// through a json.Decoder. A Decoder copies the whole body into a buffer it
// grows by doubling, which for a 33 MB body of attachments allocates about
// 130 MB more (D60); in place, unknown fields are found by knownFields.
const largeBody = 1 << 20

var (
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

// knownFields reports the first member of an object in body, at any depth,
// that t has no field for, as DisallowUnknownFields would (422
// unknown_field naming the member). It walks the bytes once, skipping
// strings with a byte search, so a 33 MB Base64 string costs little.
// Malformed JSON and values of the wrong shape are left to the decoding
// that follows, which reports them.
func knownFields(body []byte, t reflect.Type) error {
	w := &fieldWalker{data: body}
	w.value(t)
	return w.err
}

// fieldWalker walks JSON text; err is the unknown member found, if any.
// A walk that meets malformed text stops quietly (bad is set).
type fieldWalker struct {
	data []byte
	pos  int
	err  error
	bad  bool
}

func (w *fieldWalker) stopped() bool { return w.err != nil || w.bad }

func (w *fieldWalker) space() {
	for w.pos < len(w.data) && strings.IndexByte(jsonSpace, w.data[w.pos]) >= 0 {
		w.pos++
	}
}

// expect consumes c after optional space.
func (w *fieldWalker) expect(c byte) bool {
	w.space()
	if w.pos < len(w.data) && w.data[w.pos] == c {
		w.pos++
		return true
	}
	w.bad = true
	return false
}

// checked is t, or nil when its values need no look inside: types that
// decode themselves, raw messages, maps and interfaces take any member.
func checked(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t == rawMessageType || reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Slice, reflect.Array:
		return t
	}
	return nil
}

// value walks one value that fills t (nil: anything).
func (w *fieldWalker) value(t reflect.Type) {
	t = checked(t)
	w.space()
	if w.pos >= len(w.data) {
		w.bad = true
		return
	}
	switch w.data[w.pos] {
	case '{':
		w.object(t)
	case '[':
		w.pos++
		var elem reflect.Type
		if t != nil && t.Kind() != reflect.Struct {
			elem = t.Elem()
		}
		w.space()
		if w.pos < len(w.data) && w.data[w.pos] == ']' {
			w.pos++
			return
		}
		for !w.stopped() {
			w.value(elem)
			w.space()
			if w.pos < len(w.data) && w.data[w.pos] == ',' {
				w.pos++
				continue
			}
			w.expect(']')
			return
		}
	case '"':
		w.str()
	default:
		for w.pos < len(w.data) && strings.IndexByte(",]} \t\r\n", w.data[w.pos]) < 0 {
			w.pos++
		}
	}
}

// object walks an object whose members fill struct t (nil: anything).
func (w *fieldWalker) object(t reflect.Type) {
	w.pos++
	if t != nil && t.Kind() != reflect.Struct {
		t = nil // the wrong shape: decoding reports it
	}
	w.space()
	if w.pos < len(w.data) && w.data[w.pos] == '}' {
		w.pos++
		return
	}
	for !w.stopped() {
		w.space()
		start := w.pos
		if !w.str() {
			return
		}
		var member reflect.Type
		if t != nil {
			var name string
			if json.Unmarshal(w.data[start:w.pos], &name) != nil {
				w.bad = true
				return
			}
			f, ok := fieldFor(t, name)
			if !ok {
				w.err = &carteiro.Error{Code: carteiro.CodeValidation, Field: name, Reason: "unknown_field"}
				return
			}
			member = f.Type
		}
		if !w.expect(':') {
			return
		}
		w.value(member)
		w.space()
		if w.pos < len(w.data) && w.data[w.pos] == ',' {
			w.pos++
			continue
		}
		w.expect('}')
		return
	}
}

// str skips a string, the position on its opening quote.
func (w *fieldWalker) str() bool {
	if w.pos >= len(w.data) || w.data[w.pos] != '"' {
		w.bad = true
		return false
	}
	w.pos++
	for {
		i := bytes.IndexAny(w.data[w.pos:], `"\`)
		if i < 0 {
			w.bad = true
			return false
		}
		w.pos += i
		if w.data[w.pos] == '\\' {
			w.pos += 2
			continue
		}
		w.pos++
		return true
	}
}

// fieldFor finds the struct field a JSON member fills: its tag's name, or
// its Go name, matched exactly or else ignoring case, as encoding/json does.
func fieldFor(t reflect.Type, name string) (reflect.StructField, bool) {
	var folded *reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" || !f.IsExported() {
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		if tag == name {
			return f, true
		}
		if folded == nil && strings.EqualFold(tag, name) {
			folded = &f
		}
	}
	if folded != nil {
		return *folded, true
	}
	return reflect.StructField{}, false
}
