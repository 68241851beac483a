package httpapi

import (
	"encoding/json"
	"testing"

	"github.com/carteiro/carteiro"
)

type sample struct {
	Name  *string           `json:"name"`
	Count int               `json:"count"`
	Tags  []string          `json:"tags"`
	Inner struct{ X bool }  `json:"inner"`
	Map   map[string]string `json:"map"`
}

func TestDecodeJSON(t *testing.T) {
	cases := []struct {
		body   string
		code   string
		field  string
		reason string
	}{
		{`{"name":"a","count":2}`, "", "", ""},
		{`  {}  `, "", "", ""},
		{``, carteiro.CodeInvalidJSON, "", ""},
		{`null`, carteiro.CodeInvalidJSON, "", ""},
		{`[]`, carteiro.CodeInvalidJSON, "", ""},
		{`{"name":`, carteiro.CodeInvalidJSON, "", ""},
		{`{} {}`, carteiro.CodeInvalidJSON, "", ""},
		// Bad syntax anywhere is a 400, even after a field that would be a 422.
		{`{"nope":1} x`, carteiro.CodeInvalidJSON, "", ""},
		{`{"count":"x"} {}`, carteiro.CodeInvalidJSON, "", ""},
		{`{"count":"x", "name":}`, carteiro.CodeInvalidJSON, "", ""},
		{`{"count":"x"}`, carteiro.CodeValidation, "count", "invalid_type"},
		{`{"inner":{"X":"y"}}`, carteiro.CodeValidation, "inner.X", "invalid_type"},
		{`{"tags":[1]}`, carteiro.CodeValidation, "tags", "invalid_type"},
		{`{"nope":1}`, carteiro.CodeValidation, "nope", "unknown_field"},
		{`{"name":"a","name2":1}`, carteiro.CodeValidation, "name2", "unknown_field"},
	}
	for _, c := range cases {
		var dst sample
		err := DecodeJSON([]byte(c.body), &dst, false)
		if c.code == "" {
			if err != nil {
				t.Errorf("%q: unexpected error %v", c.body, err)
			}
			continue
		}
		e := carteiro.AsError(err)
		if e.Code != c.code || e.Field != c.field || e.Reason != c.reason {
			t.Errorf("%q: got %s %q %q, want %s %q %q", c.body, e.Code, e.Field, e.Reason, c.code, c.field, c.reason)
		}
	}
	var dst sample
	if err := DecodeJSON(nil, &dst, true); err != nil {
		t.Errorf("optional empty body: %v", err)
	}
}

// FuzzDecodeJSON: no input panics, and every refusal is one of the two
// documented codes (D11).
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{"name":"a"}`, `{"count":1e400}`, `{"inner":{"X":true}}`, `[`, `{"tags":["a",{}]}`, "{\"name\":\"\\ud800\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var dst sample
		err := DecodeJSON(body, &dst, false)
		if err == nil {
			if !json.Valid(body) {
				t.Fatalf("accepted invalid JSON %q", body)
			}
			return
		}
		code := carteiro.ErrorCode(err)
		if code != carteiro.CodeInvalidJSON && code != carteiro.CodeValidation {
			t.Fatalf("decode error code %s for %q", code, body)
		}
	})
}
