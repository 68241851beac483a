package store

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/carteiro/carteiro"
)

// JSON forms of the email's structured columns. They are the store's own
// format, not the API's.

type addressJSON struct {
	Name  string `json:"n,omitempty"`
	Email string `json:"e"`
}

type attachmentJSON struct {
	Filename    string `json:"f"`
	ContentType string `json:"t"`
	Disposition string `json:"d"`
	CID         string `json:"c,omitempty"`
	Content     string `json:"b"`
}

type tagJSON struct {
	Name  string `json:"n"`
	Value string `json:"v"`
}

func encodeAddresses(as []carteiro.Address) *string {
	if as == nil {
		return nil
	}
	out := make([]addressJSON, len(as))
	for i, a := range as {
		out[i] = addressJSON{Name: a.Name, Email: a.Email}
	}
	return jsonString(out)
}

func decodeAddresses(s *string) ([]carteiro.Address, error) {
	if s == nil {
		return nil, nil
	}
	var in []addressJSON
	if err := json.Unmarshal([]byte(*s), &in); err != nil {
		return nil, fmt.Errorf("decode addresses: %w", err)
	}
	out := make([]carteiro.Address, len(in))
	for i, a := range in {
		out[i] = carteiro.Address{Name: a.Name, Email: a.Email}
	}
	return out, nil
}

// attachmentMetaJSON is attachmentJSON without its content, which
// encodeAttachments writes itself.
type attachmentMetaJSON struct {
	Filename    string `json:"f"`
	ContentType string `json:"t"`
	Disposition string `json:"d"`
	CID         string `json:"c,omitempty"`
}

// encodeAttachments writes the attachments as a JSON array of
// attachmentJSON, the Base64 of each content encoded straight into the one
// buffer of the result: encoding a string, then the JSON, then copying it
// to a string held three more copies of a 25 MB attachment (D60).
func encodeAttachments(as []carteiro.Attachment) *string {
	if len(as) == 0 {
		return nil
	}
	metas := make([][]byte, len(as))
	size := 2
	for i, a := range as {
		meta, err := json.Marshal(attachmentMetaJSON{Filename: a.Filename, ContentType: a.ContentType, Disposition: a.Disposition, CID: a.CID})
		if err != nil {
			panic("store: encode JSON: " + err.Error())
		}
		metas[i] = meta
		size += len(meta) + len(`,"b":""},`) + base64.StdEncoding.EncodedLen(len(a.Content))
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteByte('[')
	for i, a := range as {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(metas[i][:len(metas[i])-1]) // without its closing brace
		b.WriteString(`,"b":"`)
		enc := base64.NewEncoder(base64.StdEncoding, &b)
		_, _ = enc.Write(a.Content)
		_ = enc.Close()
		b.WriteString(`"}`)
	}
	b.WriteByte(']')
	out := b.String()
	return &out
}

func decodeAttachments(s *string) ([]carteiro.Attachment, error) {
	if s == nil {
		return nil, nil
	}
	var in []attachmentJSON
	if err := json.Unmarshal([]byte(*s), &in); err != nil {
		return nil, fmt.Errorf("decode attachments: %w", err)
	}
	out := make([]carteiro.Attachment, len(in))
	for i, a := range in {
		content, err := base64.StdEncoding.DecodeString(a.Content)
		if err != nil {
			return nil, fmt.Errorf("decode attachment %d: %w", i, err)
		}
		out[i] = carteiro.Attachment{Filename: a.Filename, ContentType: a.ContentType, Disposition: a.Disposition, CID: a.CID, Content: content}
	}
	return out, nil
}

func encodeTags(ts []carteiro.Tag) *string {
	if ts == nil {
		return nil
	}
	out := make([]tagJSON, len(ts))
	for i, t := range ts {
		out[i] = tagJSON{Name: t.Name, Value: t.Value}
	}
	return jsonString(out)
}

func decodeTags(s *string) ([]carteiro.Tag, error) {
	if s == nil {
		return nil, nil
	}
	var in []tagJSON
	if err := json.Unmarshal([]byte(*s), &in); err != nil {
		return nil, fmt.Errorf("decode tags: %w", err)
	}
	out := make([]carteiro.Tag, len(in))
	for i, t := range in {
		out[i] = carteiro.Tag{Name: t.Name, Value: t.Value}
	}
	return out, nil
}

func encodeMap[V any](m map[string]V) *string {
	if m == nil {
		return nil
	}
	return jsonString(m)
}

func decodeMap[V any](s *string) (map[string]V, error) {
	if s == nil {
		return nil, nil
	}
	var m map[string]V
	if err := json.Unmarshal([]byte(*s), &m); err != nil {
		return nil, fmt.Errorf("decode map: %w", err)
	}
	return m, nil
}

func jsonString(v any) *string {
	b, err := json.Marshal(v)
	if err != nil {
		// Only plain structs, strings and maps of them are encoded here.
		panic("store: encode JSON: " + err.Error())
	}
	s := string(b)
	return &s
}

func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
