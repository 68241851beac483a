package reactemail

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/carteiro/carteiro/internal/render"
)

// The renderer render() gets is React's Bun build, which writes strings
// into a "direct" stream (runtime/bun-prelude.js). These tests hold what
// render() promises under Node beyond the reference files: it waits for
// components that suspend, reports a component's error, and counts
// non-ASCII text right.

// TestRenderWaitsForAsyncComponents renders a template whose components
// are async: the document holds what they return once their promises
// settle, as React's streaming renderer gives it.
func TestRenderWaitsForAsyncComponents(t *testing.T) {
	r := New(referenceLimits())
	defer r.Close()
	src := `import { Html, Body, Text } from "@react-email/components";
async function Late({ name }) {
  await Promise.resolve();
  const total = await new Promise((resolve) => setTimeout(() => resolve("12,00 €"), 0));
  return <Text>Olá {name}, total {total}</Text>;
}
export default function Email({ name }) { return <Html><Body><Late name={name} /><Text>fim</Text></Body></Html>; }`
	html, text, err := r.Render(context.Background(), src, map[string]any{"name": "Ana"}, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Olá <!-- -->Ana<!-- -->, total <!-- -->12,00 €", ">fim</p>", "<!DOCTYPE html PUBLIC"} {
		if !strings.Contains(html, want) {
			t.Errorf("html lacks %q:\n%s", want, html)
		}
	}
	if strings.Contains(html, "<!--$?-->") || strings.Contains(html, "<template") {
		t.Errorf("html holds a pending boundary:\n%s", html)
	}
	if !strings.Contains(text, "Olá Ana, total 12,00 €") || !strings.Contains(text, "fim") {
		t.Errorf("text = %q", text)
	}
}

// TestRenderReportsComponentErrors checks that an error thrown by a
// component, at once or after a promise, fails the render with its message
// (D39), and that the engine renders normally afterwards.
func TestRenderReportsComponentErrors(t *testing.T) {
	r := New(referenceLimits())
	defer r.Close()
	for name, body := range map[string]string{
		"sync":  `function Item() { throw new Error("no price for item 3"); }`,
		"async": `async function Item() { await Promise.resolve(); throw new Error("no price for item 3"); }`,
	} {
		t.Run(name, func(t *testing.T) {
			src := `import { Html, Text } from "@react-email/components";
` + body + `
export default function Email() { return <Html><Text>a</Text><Item /></Html>; }`
			_, _, err := r.Render(context.Background(), src, nil, false)
			var re *render.RenderError
			if !errors.As(err, &re) || !strings.Contains(re.Reason, "no price for item 3") {
				t.Fatalf("want a render error with the component's message, got %v", err)
			}
			html, _, err := r.Render(context.Background(), okTemplate, map[string]any{"name": "Ana"}, false)
			if err != nil || !strings.Contains(html, "Hello <!-- -->Ana") {
				t.Fatalf("a normal render after it: %v %q", err, html)
			}
		})
	}
}

// TestRenderKeepsNonASCIIText renders text in several scripts, with
// characters outside the Basic Multilingual Plane: the bytes React sizes
// in UTF-8 and the document render() decodes must be the same text.
func TestRenderKeepsNonASCIIText(t *testing.T) {
	r := New(referenceLimits())
	defer r.Close()
	src := `import { Html, Head, Preview, Text } from "@react-email/components";
export default function Email({ line }) {
  return <Html><Head /><Preview>Pré-visualização ✉️</Preview><Text>{line}</Text><Text>{line.repeat(300)}</Text></Html>;
}`
	line := "Ação, 日本語, Ελληνικά, emoji 🎉📬, ﬁn"
	html, _, err := r.Render(context.Background(), src, map[string]any{"line": line}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html, ">"+line+"</p>") || !strings.Contains(html, ">"+strings.Repeat(line, 300)+"</p>") {
		t.Errorf("the text did not come through whole:\n%s", snippet(html, 0))
	}
	if !strings.Contains(html, "Pré-visualização ✉️") {
		t.Errorf("the preview did not come through whole")
	}
}
