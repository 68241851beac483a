// Package reactemail renders React Email templates inside the Go process,
// with no Node.js at run time (D37). A customer's JSX/TSX is compiled by
// esbuild against an embedded runtime (React, react-dom/server's streaming
// renderer, @react-email/render and the layout components, bundled once from
// pinned npm versions; Tailwind, Markdown and CodeBlock in bundles loaded
// on demand) and
// rendered by the official render() in goja, so the output equals
// @react-email/render's byte for byte.
//
// Customer code is untrusted: each render has a time limit, a memory guard
// and an output cap, runs in a pooled engine whose shared objects are
// frozen, and cannot reach files, the network or the environment (the
// engine has none of them).
package reactemail

//go:generate sh -c "cd runtime && npm ci --no-audit --no-fund && go run bundle.go"
//go:generate sh -c "cd runtime && go run reference.go"

import (
	"context"
	_ "embed"
	"fmt"
	"runtime"

	"github.com/carteiro/carteiro/internal/render"
)

//go:embed runtime/runtime.js
var runtimeJS string

//go:embed setup.js
var setupJS string

// Renderer compiles and renders React Email sources. It is safe for
// concurrent use; Close releases its engines.
type Renderer struct {
	limits   render.Limits
	compiled *compileCache
	pool     *enginePool
}

// New makes a Renderer. Engines are created on first use (about 60 ms
// each), so making one costs nothing at process start.
func New(limits render.Limits) *Renderer {
	return &Renderer{
		limits:   limits,
		compiled: newCompileCache(256),
		pool:     newEnginePool(runtime.GOMAXPROCS(0), limits, "runtime.js", runtimeJS),
	}
}

// Close drops the pooled engines.
func (r *Renderer) Close() { r.pool.close() }

// Check compiles src and loads it, reporting a syntax error with its line
// and column, an import of something the runtime does not have, or a
// module without a default export.
func (r *Renderer) Check(ctx context.Context, src string) error {
	t, err := r.compile(src)
	if err != nil {
		return err
	}
	e, err := r.pool.get(ctx)
	if err != nil {
		return err
	}
	_, err = e.component(t)
	r.pool.put(e, err)
	return err
}

// Render renders src with props (the template's variables: any value that
// encodes as a JSON object; JSON.parse gives the template its member order), returning the
// HTML document and, when wantText, render()'s plain-text version of it.
func (r *Renderer) Render(ctx context.Context, src string, props any, wantText bool) (html, text string, err error) {
	t, err := r.compile(src)
	if err != nil {
		return "", "", err
	}
	e, err := r.pool.get(ctx)
	if err != nil {
		return "", "", err
	}
	html, text, err = e.render(ctx, t, props, wantText)
	r.pool.put(e, err)
	return html, text, err
}

func renderErr(format string, args ...any) error {
	return &render.RenderError{Reason: fmt.Sprintf(format, args...)}
}
