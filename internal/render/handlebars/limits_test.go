package handlebars

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/render"
)

func TestSyntaxErrorsSayWhere(t *testing.T) {
	for _, c := range []struct {
		src        string
		line, col  int
		reasonPart string
	}{
		{"<p>\n  {{#if a}}\n", 2, 3, "unclosed block"},
		{"a\nb {{#if a}}x{{/each}}", 2, 13, "doesn't match"},
		{"line1\n\n  {{x", 3, 3, "unclosed tag"},
		{"{{/if}}", 1, 1, "unexpected"},
		{"{{lookup a 'b}}", 1, 12, "unterminated string"},
	} {
		_, err := Compile(c.src)
		var se *render.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: %v, want a SyntaxError", c.src, err)
			continue
		}
		if se.Line != c.line || se.Column != c.col || !strings.Contains(se.Reason, c.reasonPart) {
			t.Errorf("%q: %d:%d %q, want %d:%d containing %q", c.src, se.Line, se.Column, se.Reason, c.line, c.col, c.reasonPart)
		}
	}
}

func TestOutputLimit(t *testing.T) {
	tpl, err := Compile("{{#each a}}{{#each @root.a}}{{@root.s}}{{/each}}{{/each}}")
	if err != nil {
		t.Fatal(err)
	}
	items := make([]any, 1000)
	data := map[string]any{"a": items, "s": strings.Repeat("x", 100)}
	_, err = tpl.Render(context.Background(), data, render.Limits{Timeout: 10 * time.Second, OutputBytes: 1 << 20})
	var re *render.RenderError
	if !errors.As(err, &re) || re.Limit != "output" {
		t.Fatalf("100 MB of output under a 1 MB cap: %v", err)
	}
	// The same template within the cap renders.
	small := map[string]any{"a": items[:3], "s": "ab"}
	out, err := tpl.Render(context.Background(), small, render.DefaultLimits())
	if err != nil || out != strings.Repeat("ab", 9) {
		t.Fatalf("small render %q %v", out, err)
	}
}

func TestTimeLimit(t *testing.T) {
	tpl, err := Compile("{{#each a}}{{#each ../a}}{{/each}}{{/each}}")
	if err != nil {
		t.Fatal(err)
	}
	data := map[string]any{"a": make([]any, 100_000)} // 1e10 iterations
	start := time.Now()
	// A limit of a second leaves room under twice it for a loaded CI machine.
	const limit = time.Second
	_, err = tpl.Render(context.Background(), data, render.Limits{Timeout: limit, OutputBytes: 1 << 20})
	var re *render.RenderError
	if !errors.As(err, &re) || re.Limit != "time" {
		t.Fatalf("want a time limit error, got %v", err)
	}
	if took := time.Since(start); took > 2*limit {
		t.Fatalf("a %v limit stopped the render after %v", limit, took)
	}
}

func TestRecursivePartialIsAnError(t *testing.T) {
	tpl, err := Compile(`{{#*inline "loop"}}x{{> loop}}{{/inline}}{{> loop}}`)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tpl.Render(context.Background(), map[string]any{}, render.DefaultLimits())
	var re *render.RenderError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "nested") {
		t.Fatalf("want a nesting error, got %v", err)
	}
}

func TestVariables(t *testing.T) {
	tpl, err := Compile("{{name}} {{#each items as |it|}}{{it.x}}{{title}}{{/each}} {{@root.z}} {{lookup map key}} {{#if flag}}{{/if}}")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(tpl.Variables(), ",")
	if got != "flag,items,key,map,name,title" {
		t.Fatalf("variables %s", got)
	}
}

func FuzzCompileRender(f *testing.F) {
	f.Add("{{#each a}}{{@index}}{{this}}{{/each}}", `{"a":[1,2]}`)
	f.Add(`{{#*inline "p"}}{{> p}}{{/inline}}{{> p}}`, `{}`)
	f.Add("{{~#if a~}} {{else if b}}{{{{raw}}}}{{x}}{{{{/raw}}}}{{/if}}", `{"b":true}`)
	f.Add("\\{{x}} {{!-- c --}} {{> (lookup . 'n')}}", `{"n":"x"}`)
	f.Fuzz(func(t *testing.T, src, data string) {
		tpl, err := Compile(src)
		if err != nil {
			var se *render.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("compile error %T", err)
			}
			return
		}
		var v any = map[string]any{"a": []any{1.0, "x"}, "b": true, "n": "p", "x": data}
		_, err = tpl.Render(context.Background(), v, render.Limits{Timeout: 50 * time.Millisecond, OutputBytes: 64 << 10})
		if err != nil {
			var re *render.RenderError
			if !errors.As(err, &re) {
				t.Fatalf("render error %T: %v", err, err)
			}
		}
	})
}
