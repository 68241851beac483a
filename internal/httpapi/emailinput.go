package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
)

// sendBody is POST /emails as JSON (4.1, D16 to D22). Address fields take
// several shapes, so they are decoded by hand from raw JSON.
type sendBody struct {
	From           json.RawMessage      `json:"from"`
	To             json.RawMessage      `json:"to"`
	Cc             json.RawMessage      `json:"cc"`
	Bcc            json.RawMessage      `json:"bcc"`
	ReplyTo        json.RawMessage      `json:"replyTo"`
	Subject        *string              `json:"subject"`
	HTML           *string              `json:"html"`
	Text           *string              `json:"text"`
	TemplateID     *string              `json:"templateId"`
	Variables      *carteiro.JSONObject `json:"variables"`
	Attachments    []attachmentBody     `json:"attachments"`
	ScheduledAt    *string              `json:"scheduledAt"`
	IdempotencyKey *string              `json:"idempotencyKey"`
	Tags           []tagBody            `json:"tags"`
	Headers        map[string]string    `json:"headers"`
	IsSandbox      *bool                `json:"isSandbox"`
}

type attachmentBody struct {
	Filename    *string            `json:"filename"`
	Content     *attachmentContent `json:"content"`
	ContentType *string            `json:"contentType"`
	Disposition *string            `json:"disposition"`
	CID         *string            `json:"cid"`
}

type tagBody struct {
	Name  *string `json:"name"`
	Value *string `json:"value"`
}

type addressObject struct {
	Email *string `json:"email"`
	Name  *string `json:"name"`
}

// decodeSend turns one JSON object into a SendRequest. headerKey is the
// Idempotency-Key header, used when the body has no key (D22).
func decodeSend(raw []byte, headerKey string) (*app.SendRequest, error) {
	var b sendBody
	if err := DecodeJSON(raw, &b, false); err != nil {
		return nil, err
	}
	r := &app.SendRequest{Subject: b.Subject, HTML: b.HTML, Text: b.Text, TemplateID: b.TemplateID,
		Variables: b.Variables, Headers: b.Headers}
	var err error
	if len(b.From) > 0 && !isNull(b.From) {
		from, err := decodeAddress("from", b.From)
		if err != nil {
			return nil, err
		}
		r.From = &from
	}
	if r.To, err = decodeAddressList("to", b.To); err != nil {
		return nil, err
	}
	if r.Cc, err = decodeAddressList("cc", b.Cc); err != nil {
		return nil, err
	}
	if r.Bcc, err = decodeAddressList("bcc", b.Bcc); err != nil {
		return nil, err
	}
	if r.ReplyTo, err = decodeAddressList("replyTo", b.ReplyTo); err != nil {
		return nil, err
	}
	for i, a := range b.Attachments {
		in, err := attachmentInput(i, a)
		if err != nil {
			return nil, err
		}
		r.Attachments = append(r.Attachments, in)
	}
	for i, t := range b.Tags {
		if t.Name == nil {
			return nil, carteiro.Invalid(fmt.Sprintf("tags[%d].name", i), "required")
		}
		if t.Value == nil {
			return nil, carteiro.Invalid(fmt.Sprintf("tags[%d].value", i), "required")
		}
		r.Tags = append(r.Tags, carteiro.Tag{Name: *t.Name, Value: *t.Value})
	}
	if b.ScheduledAt != nil {
		t, ok := parseTime(*b.ScheduledAt)
		if !ok {
			return nil, carteiro.Invalid("scheduledAt", "invalid_date")
		}
		r.ScheduledAt = &t
	}
	r.IdempotencyKey = headerKey
	if b.IdempotencyKey != nil {
		switch {
		case *b.IdempotencyKey == "":
			return nil, carteiro.Invalid("idempotencyKey", "empty")
		case headerKey != "" && headerKey != *b.IdempotencyKey:
			// Two different keys for one request: neither can be trusted.
			return nil, carteiro.Invalid("idempotencyKey", "invalid_value")
		}
		r.IdempotencyKey = *b.IdempotencyKey
	}
	if b.IsSandbox != nil {
		r.IsSandbox = *b.IsSandbox
	}
	sum := sha256.Sum256(bytes.TrimSpace(raw))
	r.BodyHash = hex.EncodeToString(sum[:])
	return r, nil
}

func attachmentInput(i int, a attachmentBody) (carteiro.AttachmentInput, error) {
	field := func(name string) string { return fmt.Sprintf("attachments[%d].%s", i, name) }
	for _, f := range []struct {
		name    string
		missing bool
	}{{"filename", a.Filename == nil}, {"content", a.Content == nil}, {"contentType", a.ContentType == nil}, {"disposition", a.Disposition == nil}} {
		if f.missing {
			return carteiro.AttachmentInput{}, carteiro.Invalid(field(f.name), "required")
		}
	}
	in := carteiro.AttachmentInput{Filename: *a.Filename, Decoded: a.Content.decoded, ContentReason: a.Content.reason,
		ContentType: *a.ContentType, Disposition: *a.Disposition}
	if a.CID != nil {
		in.CID, in.HasCID = *a.CID, true
	}
	return in, nil
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// decodeAddress reads "a@b.c", "Name <a@b.c>" or {email, name?} (D16).
func decodeAddress(field string, raw json.RawMessage) (app.AddressInput, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) > 0 && raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return app.AddressInput{}, carteiro.Invalid(field, "invalid_type")
		}
		return app.AddressInput{Text: s}, nil
	case len(raw) > 0 && raw[0] == '{':
		var o addressObject
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o); err != nil {
			if e := carteiro.AsError(decodeError(err)); e.Code == carteiro.CodeValidation {
				return app.AddressInput{}, carteiro.Invalid(field+"."+e.Field, e.Reason)
			}
			return app.AddressInput{}, carteiro.Invalid(field, "invalid_type")
		}
		if o.Email == nil {
			return app.AddressInput{}, carteiro.Invalid(field+".email", "required")
		}
		in := app.AddressInput{Object: true, Email: *o.Email}
		if o.Name != nil {
			in.Name = *o.Name
		}
		return in, nil
	}
	return app.AddressInput{}, carteiro.Invalid(field, "invalid_type")
}

// decodeAddressList reads one address or an array of them.
func decodeAddressList(field string, raw json.RawMessage) (app.AddressList, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || isNull(raw) {
		return app.AddressList{}, nil
	}
	if raw[0] != '[' {
		a, err := decodeAddress(field, raw)
		if err != nil {
			return app.AddressList{}, err
		}
		return app.AddressList{Items: []app.AddressInput{a}, Single: true}, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return app.AddressList{}, carteiro.Invalid(field, "invalid_type")
	}
	list := app.AddressList{Items: make([]app.AddressInput, 0, len(items))}
	for i, it := range items {
		a, err := decodeAddress(fmt.Sprintf("%s[%d]", field, i), it)
		if err != nil {
			return app.AddressList{}, err
		}
		list.Items = append(list.Items, a)
	}
	return list, nil
}

// parseTime reads an ISO 8601 timestamp (RFC 3339, with or without
// fractional seconds) or a date, which means its midnight UTC.
func parseTime(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05Z0700", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC().Truncate(time.Microsecond), true
		}
	}
	return time.Time{}, false
}
