package httpapi

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
)

// contactStream gives the items of a bulk import's contacts array one at a
// time, decoded as the import asks for them: decoding 10,000 items took a
// fifth of the call before the first could be written
// (docs/benchmarks-campaigns.md). The body's syntax has been checked
// whole before, so an item can only be refused for its fields.
type contactStream struct {
	dec  *json.Decoder
	read int
}

// newContactStream opens the contacts array raw (as sent; absent or null
// is a 422 "required", anything but an array "invalid_type").
func newContactStream(raw json.RawMessage) (*contactStream, error) {
	if len(raw) == 0 || isNull(raw) {
		return nil, carteiro.Invalid("contacts", "required")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, carteiro.Invalid("contacts", "invalid_type")
	}
	return &contactStream{dec: dec}, nil
}

// Next implements app.ContactSource.
func (cs *contactStream) Next() (app.ContactInput, bool, error) {
	if !cs.dec.More() {
		return app.ContactInput{}, false, nil
	}
	prefix := "contacts[" + strconv.Itoa(cs.read) + "]."
	cs.read++
	var b contactBody
	if err := cs.dec.Decode(&b); err != nil {
		e := carteiro.AsError(decodeError(err))
		if e.Code == carteiro.CodeValidation {
			return app.ContactInput{}, false, carteiro.Invalid(prefix+e.Field, e.Reason)
		}
		// Not an object (the syntax was fine).
		return app.ContactInput{}, false, carteiro.Invalid(strings.TrimSuffix(prefix, "."), "invalid_type")
	}
	in, err := b.input(prefix)
	return in, true, err
}
