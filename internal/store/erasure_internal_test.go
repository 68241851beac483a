package store

import "testing"

// D78: the eraser replaces the whole address in any case, and nothing that
// only contains it.
func TestEraserReplacesWholeAddressesOnly(t *testing.T) {
	x := NewEraser("Pat@X.example")
	for in, want := range map[string]string{
		"Your order, pat@x.example":            "Your order, erased@erased.invalid",
		"PAT@X.EXAMPLE,pat@x.example":          "erased@erased.invalid,erased@erased.invalid",
		"550 <pat@x.example>: no such user":    "550 <erased@erased.invalid>: no such user",
		"spat@x.example and pat@x.example.org": "spat@x.example and pat@x.example.org",
		"nothing here":                         "nothing here",
	} {
		if got := x.text(in); got != want {
			t.Errorf("text(%q) = %q, want %q", in, got, want)
		}
	}
	got := x.json(`{"to":["Pat Doe \u003cpat@x.example\u003e","friend@x.example"],"subject":"hi pat@x.example","n":1}`)
	want := `{"n":1,"subject":"hi erased@erased.invalid","to":["erased@erased.invalid","friend@x.example"]}`
	if got != want {
		t.Errorf("json = %s, want %s", got, want)
	}
}
