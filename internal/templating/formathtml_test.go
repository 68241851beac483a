package templating

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/carteiro/carteiro/internal/render"
	"github.com/carteiro/carteiro/internal/render/handlebars"
)

var mustacheTag = regexp.MustCompile(`\{\{[^}]*\}\}+`)

// squashSpace removes whitespace between tags and collapses the rest, the
// difference HTML rendering ignores.
func squashSpace(s string) string {
	s = regexp.MustCompile(`>\s+<`).ReplaceAllString(s, "><")
	return strings.Join(strings.Fields(s), " ")
}

func TestFormatKeepsMeaning(t *testing.T) {
	srcs := []string{
		`<table><tr><td>{{#if a}}<b>{{a}}</b>{{else}}none{{/if}}</td></tr></table>`,
		"<!doctype html><html><head><title>{{t}}</title><style>p { color: red }\n  td{x:y}</style></head><body><div><p>Olá <i>{{name}}</i>, bem-vindo.</p>{{#each items}}<p>{{@index}}: {{this}}</p>{{/each}}<pre>  keep\n   this </pre></div></body></html>",
		`<ul>{{#each items}}<li><a href="{{url}}" title="{{#if t}}{{t}}{{/if}}">{{name}}</a></li>{{/each}}</ul>{{!-- note --}}<p>end</p>`,
		"<div>\n\n\n<p>a</p>\n      <p>b {{x}} c</p></div>\n",
	}
	data := map[string]any{"a": "A", "t": "T", "name": "Ana", "x": "X", "items": []any{
		map[string]any{"url": "https://a.example", "name": "n1", "t": "t1"}, map[string]any{"url": "https://b.example", "name": "n2"}}}
	for _, src := range srcs {
		out, err := formatHandlebars(context.Background(), src)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if strings.Join(mustacheTag.FindAllString(out, -1), "") != strings.Join(mustacheTag.FindAllString(src, -1), "") {
			t.Errorf("mustaches changed:\n%s\n%s", src, out)
		}
		before, after := renderWith(t, src, data), renderWith(t, out, data)
		if squashSpace(before) != squashSpace(after) {
			t.Errorf("meaning changed:\n%s\n---\n%s", before, after)
		}
		if strings.Contains(src, "<pre>") && !strings.Contains(out, "<pre>  keep\n   this </pre>") {
			t.Errorf("pre content changed: %s", out)
		}
		again, _ := formatHandlebars(context.Background(), out)
		if again != out {
			t.Errorf("not idempotent:\n%s\n---\n%s", out, again)
		}
	}
	out, _ := formatHandlebars(context.Background(), srcs[0])
	want := "<table>\n  <tr>\n    <td>\n      {{#if a}}<b>{{a}}</b>{{else}}none{{/if}}\n    </td>\n  </tr>\n</table>"
	if out != want {
		t.Errorf("layout:\n%s\nwant\n%s", out, want)
	}
	_, err := formatHandlebars(context.Background(), "{{#if a}}")
	var se *render.SyntaxError
	if !errors.As(err, &se) || se.Line != 1 {
		t.Errorf("syntax error: %v", err)
	}
}

func renderWith(t *testing.T, src string, data any) string {
	tpl, err := handlebars.Compile(src)
	if err != nil {
		t.Fatalf("compile %q: %v", src, err)
	}
	out, err := tpl.Render(context.Background(), data, render.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	return out
}
