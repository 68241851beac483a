package httpapi

import (
	"bytes"
	"encoding/json"
	"reflect"

	"github.com/carteiro/carteiro"
)

// attachmentContent is an attachment's Base64 content, decoded while the
// JSON is: from the decoder's own buffer into the decoded bytes, so a 25 MB
// attachment is never also held as a 33 MB string (D60: a request holds at
// most about 3x its body). A bad encoding is kept as a reason for the
// domain's checks to report in their order (attachments[i].content).
type attachmentContent struct {
	decoded []byte
	reason  string
}

// UnmarshalJSON implements json.Unmarshaler; raw is only read.
func (c *attachmentContent) UnmarshalJSON(raw []byte) error {
	if len(raw) < 2 || raw[0] != '"' {
		return &json.UnmarshalTypeError{Value: jsonKind(raw), Type: reflect.TypeFor[string]()}
	}
	text := raw[1 : len(raw)-1]
	if bytes.IndexByte(text, '\\') >= 0 {
		// Escapes (an escaped "/" or a wrapped line's "\r\n") are rare in
		// Base64: unquote those the ordinary way.
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return err
		}
		text = []byte(s)
	}
	c.decoded, c.reason = carteiro.DecodeAttachmentContent(text)
	return nil
}

// jsonKind names a JSON value's type as encoding/json's errors do.
func jsonKind(raw []byte) string {
	switch {
	case len(raw) == 0:
		return "value"
	case raw[0] == '{':
		return "object"
	case raw[0] == '[':
		return "array"
	case raw[0] == 't' || raw[0] == 'f':
		return "bool"
	case raw[0] == 'n':
		return "null"
	}
	return "number"
}
