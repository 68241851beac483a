package carteiro

import (
	"errors"
	"strings"
	"testing"
)

func TestNewContactMetadata(t *testing.T) {
	fill := func(n int) string { // an object of exactly n bytes, compacted
		return `{"k":"` + strings.Repeat("x", n-len(`{"k":""}`)) + `"}`
	}
	cases := []struct {
		raw, want, reason string
	}{
		{raw: " {\n  \"plan\": \"pro\",\n  \"seats\": 3 }\n", want: `{"plan":"pro","seats":3}`},
		{raw: `{"id":12345678901234567890,"f":1.50}`, want: `{"id":12345678901234567890,"f":1.50}`}, // digits kept as sent
		{raw: `{"a":{"b":[1,2]}}`, want: `{"a":{"b":[1,2]}}`},
		{raw: `{}`, want: `{}`},
		{raw: fill(MaxContactMetadata), want: fill(MaxContactMetadata)},
		{raw: fill(MaxContactMetadata + 1), reason: "too_large"},
		{raw: `[1]`, reason: "invalid_type"},
		{raw: `"text"`, reason: "invalid_type"},
		{raw: `3`, reason: "invalid_type"},
		{raw: ``, reason: "invalid_type"},
	}
	for _, c := range cases {
		got, err := NewContactMetadata("metadata", []byte(c.raw))
		if c.reason != "" {
			var ce *Error
			if !errors.As(err, &ce) || ce.Field != "metadata" || ce.Reason != c.reason {
				t.Errorf("%.40q: error %v, want %s on metadata", c.raw, err, c.reason)
			}
			continue
		}
		if err != nil || string(got) != c.want {
			t.Errorf("%.40q: %q, %v; want %.60q", c.raw, got, err, c.want)
		}
	}
}

func TestContactMetadataNoneIsEmptyObject(t *testing.T) {
	var none ContactMetadata
	if string(none.JSON()) != "{}" {
		t.Errorf("JSON of none = %s, want {}", none.JSON())
	}
	m, err := none.Map()
	if err != nil || m == nil || len(m) != 0 {
		t.Errorf("Map of none = %v, %v; want an empty map", m, err)
	}
	m, err = ContactMetadata(`{"plan":"pro","n":2}`).Map()
	if err != nil || m["plan"] != "pro" || m["n"] != 2.0 {
		t.Errorf("Map = %v, %v", m, err)
	}
}
