package handlebars

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/render"
)

//go:generate sh -c "cd testdata/gen && npm ci --no-audit --no-fund && node gen.js"

// TestConformance renders every case of testdata/cases.json and compares
// with testdata/expected.json, which handlebars.js 4.7.8 itself produced
// (testdata/gen). A case where handlebars.js throws must fail here too.
func TestConformance(t *testing.T) {
	var cases []struct {
		Name     string          `json:"name"`
		Template string          `json:"template"`
		Data     json.RawMessage `json:"data"`
		NoEscape bool            `json:"noEscape"`
	}
	readJSON(t, "testdata/cases.json", &cases)
	var expected map[string]json.RawMessage
	readJSON(t, "testdata/expected.json", &expected)
	if len(cases) < 150 || len(expected) != len(cases) {
		t.Fatalf("%d cases, %d expected outputs: regenerate with go generate", len(cases), len(expected))
	}
	for _, c := range cases {
		var want string
		var wantErr struct {
			Error string `json:"error"`
		}
		raw := expected[c.Name]
		isErr := json.Unmarshal(raw, &want) != nil
		if isErr {
			if err := json.Unmarshal(raw, &wantErr); err != nil {
				t.Fatalf("%s: expected output %s", c.Name, raw)
			}
		}
		got, err := renderCase(c.Template, caseData(t, c.Data), c.NoEscape)
		switch {
		case isErr && err == nil:
			t.Errorf("%s: handlebars.js fails (%s) but we rendered %q", c.Name, wantErr.Error, got)
		case !isErr && err != nil:
			t.Errorf("%s: %v; want %q", c.Name, err, want)
		case !isErr && got != want:
			t.Errorf("%s:\n got %q\nwant %q", c.Name, got, want)
		}
		if err != nil {
			var se *render.SyntaxError
			var re *render.RenderError
			if !errors.As(err, &se) && !errors.As(err, &re) {
				t.Errorf("%s: error %T is neither a SyntaxError nor a RenderError", c.Name, err)
			}
		}
	}
}

// caseData decodes a case's data as a request's variables are: objects
// keep their members' order (carteiro.JSONObject), as JSON.parse's do.
func caseData(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	if len(raw) == 0 {
		return nil
	}
	if raw[0] == '{' {
		obj, err := carteiro.ParseJSONObject(raw)
		if err != nil {
			t.Fatal(err)
		}
		return obj
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func renderCase(src string, data any, noEscape bool) (string, error) {
	tpl, err := Compile(src)
	if err != nil {
		return "", err
	}
	if data == nil {
		data = map[string]any{}
	}
	if noEscape {
		return tpl.RenderText(context.Background(), data, render.DefaultLimits())
	}
	return tpl.Render(context.Background(), data, render.DefaultLimits())
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
