package carteiro

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// Issue 24 (item 6): an object keeps its members' order at every depth and
// encodes back as it came; a repeated key keeps its first place and last
// value, as JSON.parse does.
func TestJSONObjectKeepsMemberOrder(t *testing.T) {
	in := `{"z":1,"a":{"y":[{"q":1,"b":2}],"c":null},"m":"x","z":true}`
	o, err := ParseJSONObject([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(o.Keys(), ","); got != "z,a,m" {
		t.Errorf("keys %s", got)
	}
	if v, _ := o.Get("z"); v != true {
		t.Errorf("repeated key value %v", v)
	}
	out, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"z":true,"a":{"y":[{"q":1,"b":2}],"c":null},"m":"x"}`; string(out) != want {
		t.Errorf("encoded %s, want %s", out, want)
	}
	merged := JSONObjectFromMap(map[string]any{"m": 0, "d": 1}).Merged(o)
	if got := strings.Join(merged.Keys(), ","); got != "d,m,z,a" {
		t.Errorf("merged keys %s", got)
	}
	for _, bad := range []string{`[1]`, `5`, `"x"`} {
		var typeErr *json.UnmarshalTypeError
		if _, err := ParseJSONObject([]byte(bad)); !errors.As(err, &typeErr) {
			t.Errorf("%s: %v, want a type error", bad, err)
		}
	}
	if _, err := ParseJSONObject([]byte(`{"a":`)); err == nil {
		t.Error("truncated object accepted")
	}
}
