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

// hostileSources are 480 KB sources (under the API's 512 KB cap) whose
// parse used to be quadratic: each tag's position counted from the start,
// each subexpression rescanned per level, each comment searched to the end
// twice, escaped text concatenated piece by piece (D61).
func hostileSources() map[string]string {
	const size = 480 << 10
	fill := func(unit string) string { return strings.Repeat(unit, size/len(unit)) }
	nested := func(n int) string {
		return "{{" + strings.Repeat("lookup (", n) + "a" + strings.Repeat(` "k")`, n) + "}}"
	}
	return map[string]string{
		"nested lookups":          nested(size / 13),
		"lookups nested 250 deep": fill(nested(250)),
		"tags on one line":        fill("{{a}}"),
		"comments":                fill("{{!-- c --}}"),
		"escaped mustaches":       fill(`\{{a}}`),
		"many subexpressions":     "{{x " + fill("(a) ") + "}}",
		"nested blocks":           fill("{{#if a}}") + strings.Repeat("{{/if}}", size/9),
		"blocks nested 200 deep":  fill(strings.Repeat("{{#if a}}", 200) + strings.Repeat("{{/if}}", 200)),
	}
}

// TestParseIsLinearD61 parses each hostile source under D61's 2 s deadline,
// which parsing counts against: each is parsed or refused with a syntax
// error before it (the nested-lookup source took 14.5 s to parse).
func TestParseIsLinearD61(t *testing.T) {
	for name, src := range hostileSources() {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), render.DefaultLimits().Timeout)
			defer cancel()
			_, err := CompileContext(ctx, src)
			var re *render.RenderError
			if errors.As(err, &re) {
				t.Fatalf("the parse did not end within the deadline: %v", err)
			}
			var se *render.SyntaxError
			if err != nil && !errors.As(err, &se) {
				t.Fatalf("want a template or a syntax error, got %v", err)
			}
		})
	}
}

// TestNestingIsBoundedAtParseD61 refuses nesting the evaluator would refuse
// anyway, so that neither recurses without bound.
func TestNestingIsBoundedAtParseD61(t *testing.T) {
	for _, src := range []string{
		"{{" + strings.Repeat("lookup (", maxNesting+1) + "a" + strings.Repeat(` "k")`, maxNesting+1) + "}}",
		strings.Repeat("{{#if a}}", maxNesting+1) + strings.Repeat("{{/if}}", maxNesting+1),
	} {
		_, err := Compile(src)
		var se *render.SyntaxError
		if !errors.As(err, &se) || !strings.Contains(se.Reason, "nested more than") {
			t.Errorf("want a nesting syntax error, got %v", err)
		}
	}
	if _, err := Compile("{{" + strings.Repeat("lookup (", 200) + "a" + strings.Repeat(` "k")`, 200) + "}}"); err != nil {
		t.Errorf("200 levels: %v", err)
	}
}

// TestParseCountsAgainstTheDeadlineD61: a parse still running at the
// deadline ends with the time limit.
func TestParseCountsAgainstTheDeadlineD61(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := CompileContext(ctx, strings.Repeat("{{a}}", 10_000))
	var re *render.RenderError
	if !errors.As(err, &re) || re.Limit != "time" {
		t.Fatalf("want a time limit error, got %v", err)
	}
}
