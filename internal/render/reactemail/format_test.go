package reactemail

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carteiro/carteiro/internal/render"
)

// TestFormatKeepsMeaning formats every reference template: the result keeps
// its comments and TypeScript types, is stable (formatting it again changes
// nothing) and renders to the same text and the same HTML as the original,
// but for the empty comments React puts between adjacent text nodes:
// Prettier moves the space before an element on its own line into {" "},
// splitting one text node in two, which displays the same.
func TestFormatKeepsMeaning(t *testing.T) {
	f := NewFormatter(referenceLimits())
	defer f.Close()
	r := referenceRenderer
	sources, _ := filepath.Glob("testdata/*.[jt]sx")
	for _, src := range sources {
		prefix := strings.TrimSuffix(src, filepath.Ext(src))
		t.Run(filepath.Base(prefix), func(t *testing.T) {
			code := read(t, src)
			// Squeeze the source so the formatter has work to do.
			squeezed := strings.ReplaceAll(code, "\n  ", "\n")
			formatted, err := f.Format(context.Background(), squeezed)
			if err != nil {
				t.Fatal(err)
			}
			again, err := f.Format(context.Background(), formatted)
			if err != nil || again != formatted {
				t.Fatalf("formatting twice changed the source (%v)", err)
			}
			for _, kept := range []string{"// ", "interface WelcomeProps", "type Props", ": Props"} {
				if strings.Contains(code, kept) && !strings.Contains(formatted, kept) {
					t.Errorf("the formatted source lost %q:\n%s", kept, formatted)
				}
			}
			var props map[string]any
			_ = json.Unmarshal([]byte(read(t, prefix+".props.json")), &props)
			html, text, err := r.Render(context.Background(), formatted, props, true)
			if err != nil {
				t.Fatal(err)
			}
			same(t, "html", strings.ReplaceAll(html, "<!-- -->", ""), strings.ReplaceAll(read(t, prefix+".html"), "<!-- -->", ""))
			same(t, "text", text, read(t, prefix+".txt"))
		})
	}
}

func TestFormatSyntaxError(t *testing.T) {
	f := NewFormatter(referenceLimits())
	defer f.Close()
	_, err := f.Format(context.Background(), "export default function A() {\n  return <Html><Text>hi</Html>;\n}")
	var se *render.SyntaxError
	if !errors.As(err, &se) || se.Line != 2 {
		t.Fatalf("want a syntax error on line 2, got %v", err)
	}
}
