package reactemail

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/render"
)

// TestMatchesOfficialRender renders every template of testdata and compares
// the HTML and the plain text with what @react-email/render produced under
// Node for the same props (runtime/reference.go), byte for byte.
func TestMatchesOfficialRender(t *testing.T) {
	sources, err := filepath.Glob("testdata/*.[jt]sx")
	if err != nil || len(sources) < 3 {
		t.Fatalf("want at least 3 reference templates, found %d (%v)", len(sources), err)
	}
	r := referenceRenderer
	for _, src := range sources {
		prefix := strings.TrimSuffix(src, filepath.Ext(src))
		t.Run(filepath.Base(prefix), func(t *testing.T) {
			code := read(t, src)
			var props map[string]any
			if err := json.Unmarshal([]byte(read(t, prefix+".props.json")), &props); err != nil {
				t.Fatal(err)
			}
			// Twice: the second render runs on a warm engine with the
			// template loaded, and must not differ from the first.
			for round := 0; round < 2; round++ {
				html, text, err := r.Render(context.Background(), code, props, true)
				if err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
				same(t, "html", html, read(t, prefix+".html"))
				same(t, "text", text, read(t, prefix+".txt"))
			}
		})
	}
}

// referenceRenderer renders the reference templates for every test of the
// package that compares output, so CodeBlock's Prism, which takes seconds
// to load (over a minute under the race detector), loads once.
var referenceRenderer *Renderer

func TestMain(m *testing.M) {
	referenceRenderer = New(referenceLimits())
	code := m.Run()
	referenceRenderer.Close()
	os.Exit(code)
}

// referenceLimits are D37's limits with a long time limit: these tests are
// about the output, and under the race detector goja runs 10 to 20 times
// slower. limits_test.go tests the limits.
func referenceLimits() render.Limits {
	l := render.DefaultLimits()
	l.Timeout = 30 * time.Second
	return l
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func same(t *testing.T, what, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	t.Fatalf("%s differs from the reference at byte %d of %d/%d:\n got: %q\nwant: %q", what, i, len(got), len(want),
		snippet(got, i), snippet(want, i))
}

func snippet(s string, at int) string {
	from, to := max(0, at-80), min(len(s), at+80)
	return s[from:to]
}

// TestRenderLeavesNothingQueued checks that a finished render leaves no
// task behind: React queues work after the document completes, and tasks
// left in the queue kept every render's memory alive (85 KB a render).
func TestRenderLeavesNothingQueued(t *testing.T) {
	r := New(referenceLimits())
	defer r.Close()
	for _, name := range []string{"welcome.tsx", "tailwind.tsx"} {
		var props map[string]any
		prefix := strings.TrimSuffix(name, filepath.Ext(name))
		if err := json.Unmarshal([]byte(read(t, "testdata/"+prefix+".props.json")), &props); err != nil {
			t.Fatal(err)
		}
		if _, _, err := r.Render(context.Background(), read(t, "testdata/"+name), props, true); err != nil {
			t.Fatal(err)
		}
		e, err := r.pool.get(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ran, err := e.runTask(nil)
		r.pool.put(e, err)
		if err != nil || ran.ToBoolean() {
			t.Fatalf("%s: a task was still queued after the render (%v)", name, err)
		}
	}
}

// TestConcurrentRenders renders the reference templates from more
// goroutines than there are engines: every render waits for an engine and
// gets exactly the reference output.
func TestConcurrentRenders(t *testing.T) {
	r := New(referenceLimits())
	defer r.Close()
	names := []string{"welcome.tsx", "receipt.jsx", "notice.tsx"}
	type ref struct {
		src, html string
		props     map[string]any
	}
	refs := make([]ref, len(names))
	for i, name := range names {
		prefix := "testdata/" + strings.TrimSuffix(name, filepath.Ext(name))
		refs[i] = ref{src: read(t, "testdata/"+name), html: read(t, prefix+".html")}
		if err := json.Unmarshal([]byte(read(t, prefix+".props.json")), &refs[i].props); err != nil {
			t.Fatal(err)
		}
	}
	errs := make(chan error, 12)
	for g := 0; g < 12; g++ {
		go func() {
			ref := refs[g%len(refs)]
			html, _, err := r.Render(context.Background(), ref.src, ref.props, false)
			if err == nil && html != ref.html {
				err = fmt.Errorf("goroutine %d: output differs from the reference", g)
			}
			errs <- err
		}()
	}
	for g := 0; g < 12; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
