// Package handlebars renders Handlebars templates with the semantics of
// handlebars.js 4.7: escaping, paths (../, this, @root, [literal]), the
// built-in helpers (if, unless, each, with, lookup, log), block
// parameters, whitespace control and standalone lines, comments, raw
// blocks, partials (inline, partial blocks, dynamic). It is pure Go for
// speed; conformance_test.go compares it with handlebars.js itself.
//
// Customer templates are untrusted: a render has a time limit, an output
// cap and a nesting bound, and can reach nothing but its data.
package handlebars

import (
	"context"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/carteiro/carteiro/internal/render"
)

// Template is a compiled template, safe for concurrent use.
type Template struct {
	prog *program
	vars []string
}

// Compile parses src; a parse error is a *render.SyntaxError.
func Compile(src string) (*Template, error) {
	return CompileContext(context.Background(), src)
}

// CompileContext parses src, in time linear in its length, and stops with
// a *render.RenderError for the time limit when ctx ends first: parsing
// counts against a render's deadline (D61).
func CompileContext(ctx context.Context, src string) (*Template, error) {
	prog, err := parse(ctx, src)
	if errors.Is(err, errTime) {
		return nil, &render.RenderError{Reason: "parsing the template took longer than the limit", Limit: "time"}
	}
	if err != nil {
		return nil, err
	}
	return &Template{prog: prog, vars: variables(prog)}, nil
}

// Render evaluates the template with data, HTML-escaping {{values}}.
func (t *Template) Render(ctx context.Context, data any, limits render.Limits) (string, error) {
	return t.render(ctx, data, limits, false)
}

// RenderText evaluates the template without escaping, for subjects and
// plain text (handlebars.js's noEscape option).
func (t *Template) RenderText(ctx context.Context, data any, limits render.Limits) (string, error) {
	return t.render(ctx, data, limits, true)
}

func (t *Template) render(ctx context.Context, data any, limits render.Limits, noEscape bool) (string, error) {
	if limits.OutputBytes <= 0 {
		limits.OutputBytes = render.DefaultLimits().OutputBytes
	}
	if limits.Timeout <= 0 {
		limits.Timeout = render.DefaultLimits().Timeout
	}
	var out strings.Builder
	r := &renderer{out: &out, maxOut: limits.OutputBytes, ctx: ctx, deadline: time.Now().Add(limits.Timeout), noEscape: noEscape}
	var none *partialScope
	root := &frame{ctx: data, depths: []any{data}, data: &dataFrame{root: data}, partials: none.with(t.prog.inlines)}
	err := r.body(t.prog.body, root)
	switch {
	case err == nil:
		return out.String(), nil
	case errors.Is(err, errOutput):
		return "", &render.RenderError{Reason: "the output is larger than the limit", Limit: "output"}
	case errors.Is(err, errTime):
		return "", &render.RenderError{Reason: "the render took longer than the limit", Limit: "time"}
	}
	return "", err
}

// Variables lists the names the template reads from its data at the top
// level (best effort, for documentation and checks).
func (t *Template) Variables() []string { return t.vars }

func variables(prog *program) []string {
	seen := map[string]bool{}
	params := map[string]bool{}
	var walkProg func(p *program)
	var walkExpr func(e expr)
	walkCall := func(c *call, asHelper bool) {
		if name, ok := simpleName(c.path); ok && isHelper(name) && asHelper {
			// The helper's name is not a variable.
		} else {
			walkExpr(c.path)
		}
		for _, p := range c.params {
			walkExpr(p)
		}
		for _, h := range c.hash {
			walkExpr(h.value)
		}
	}
	walkExpr = func(e expr) {
		switch v := e.(type) {
		case *pathExpr:
			if !v.data && v.depth == 0 && len(v.parts) > 0 && !v.scoped {
				seen[v.parts[0]] = true
			}
		case *subExpr:
			walkCall(&v.call, true)
		}
	}
	walkProg = func(p *program) {
		if p == nil {
			return
		}
		for _, name := range p.blockParams {
			params[name] = true
		}
		for _, n := range p.body {
			switch s := n.(type) {
			case *mustache:
				walkCall(&s.call, true)
			case *block:
				if s.kind == blockHelper {
					walkCall(&s.call, true)
				}
				walkProg(s.program)
				walkProg(s.inverse)
			case *partial:
				for _, e := range s.params {
					walkExpr(e)
				}
			}
		}
	}
	walkProg(prog)
	out := make([]string, 0, len(seen))
	for name := range seen {
		if !params[name] {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
