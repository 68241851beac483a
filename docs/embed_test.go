package docs

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestOpenAPIJSONMatchesYAML checks that the served JSON says exactly what the
// YAML says, judged by an independent decoder (yaml.v3 into plain maps).
func TestOpenAPIJSONMatchesYAML(t *testing.T) {
	t.Parallel()
	got, err := OpenAPIJSON()
	if err != nil {
		t.Fatal(err)
	}
	var fromJSON any
	if err := json.Unmarshal(got, &fromJSON); err != nil {
		t.Fatalf("OpenAPIJSON is not JSON: %v", err)
	}
	var fromYAML any
	if err := yaml.Unmarshal(OpenAPIYAML(), &fromYAML); err != nil {
		t.Fatal(err)
	}
	// Round-trip the YAML value through JSON so numbers compare as float64.
	roundTrip, err := json.Marshal(fromYAML)
	if err != nil {
		t.Fatal(err)
	}
	var want any
	if err := json.Unmarshal(roundTrip, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromJSON, want) {
		t.Fatal("OpenAPIJSON differs from the YAML it was made from")
	}
	if !bytes.HasPrefix(got, []byte(`{"openapi":"3.1.0","info":`)) {
		t.Errorf("keys lost the document's order; JSON starts %.40s", got)
	}
}

func TestReturnedSlicesAreCopies(t *testing.T) {
	t.Parallel()
	y := OpenAPIYAML()
	y[0] = 'X'
	if OpenAPIYAML()[0] == 'X' {
		t.Error("OpenAPIYAML shares its backing array with callers")
	}
	j, err := OpenAPIJSON()
	if err != nil {
		t.Fatal(err)
	}
	j[0] = 'X'
	if j2, _ := OpenAPIJSON(); j2[0] == 'X' {
		t.Error("OpenAPIJSON shares its backing array with callers")
	}
}

func TestYAMLToJSON(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
	}{
		{"order kept", "b: 1\na: 2\n", `{"b":1,"a":2}`},
		{"integer key becomes string", "200: ok\n", `{"200":"ok"}`},
		{"scalars typed", "s: '1'\ni: 1\nf: 1.5\nt: true\nn: null\n", `{"s":"1","i":1,"f":1.5,"t":true,"n":null}`},
		{"date kept as written", "d: 2025-01-02\n", `{"d":"2025-01-02"}`},
		{"alias expanded", "a: &x [1, 2]\nb: *x\n", `{"a":[1,2],"b":[1,2]}`},
		{"angle brackets readable", "d: <domain> & co\n", `{"d":"<domain> & co"}`},
		{"flow sequence of types", "type: [string, 'null']\n", `{"type":["string","null"]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := yamlToJSON([]byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
}

func TestYAMLToJSONRefuses(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"duplicate key":  "a: 1\na: 2\n",
		"two documents":  "a: 1\n---\nb: 2\n",
		"broken YAML":    "a: [1, 2\n",
		"merge key":      "base: &b {x: 1}\nc:\n  <<: *b\n",
		"non-scalar key": "? [1, 2]\n: v\n",
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if out, err := yamlToJSON([]byte(in)); err == nil {
				t.Errorf("accepted, gave %s", out)
			}
		})
	}
}

func TestDocumentCitesDecisions(t *testing.T) {
	t.Parallel()
	// The descriptions are meant to point readers at the decisions (D-numbers).
	if n := strings.Count(string(OpenAPIYAML()), "(D"); n < 20 {
		t.Errorf("only %d citations of decisions in openapi.yaml", n)
	}
}
