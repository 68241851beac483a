// Package templating renders customer templates: Handlebars HTML and React
// Email sources, their Handlebars subject and text, sanitizing for
// test-render and pretty-printing. It implements app.TemplateEngine over the
// engines in internal/render.
package templating

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/render"
	"github.com/carteiro/carteiro/internal/render/worker"
)

// sourceEngine is one format's renderer of the main source.
type sourceEngine interface {
	check(ctx context.Context, src string) error
	// render returns the HTML and, when wantText and the engine makes one,
	// its own plain text; "" means generate it from the HTML.
	render(ctx context.Context, src string, vars *carteiro.JSONObject, wantText bool) (html, text string, err error)
}

// Engine renders every format. It is safe for concurrent use.
type Engine struct {
	limits     render.Limits
	handlebars *handlebarsEngine
	react      *reactEngine
	formatter  formatter
}

// Options set up an Engine.
type Options struct {
	// Limits bound every render (D61).
	Limits render.Limits
	// RenderWorkers is how many React Email worker processes render at
	// once (default 2).
	RenderWorkers int
	Logger        *slog.Logger
}

// New builds an Engine. Heavy engines (the React Email workers, the
// formatter) start on first use, so process start is not slowed.
func New(o Options) (*Engine, error) {
	e := &Engine{limits: o.Limits, handlebars: newHandlebarsEngine(o.Limits)}
	e.react = newReactEngine(worker.Config{Limits: o.Limits, Workers: o.RenderWorkers, Logger: o.Logger})
	e.formatter = newFormatter(o.Limits)
	return e, nil
}

// Close releases the engines' resources.
func (e *Engine) Close() error {
	e.formatter.close()
	return e.react.close()
}

func (e *Engine) engine(f carteiro.TemplateFormat) (sourceEngine, error) {
	switch f {
	case carteiro.TemplateHandlebars:
		return e.handlebars, nil
	case carteiro.TemplateReact:
		return e.react, nil
	}
	return nil, fmt.Errorf("templating: unknown format %q", f)
}

// Check reports the first syntax error of the source, its subject or text.
func (e *Engine) Check(ctx context.Context, src carteiro.TemplateSource) error {
	eng, err := e.engine(src.Format)
	if err != nil {
		return err
	}
	if err := eng.check(ctx, src.HTML); err != nil {
		return err
	}
	for _, side := range []*string{src.Subject, src.Text} {
		if side != nil {
			if err := e.handlebars.check(ctx, *side); err != nil {
				return err
			}
		}
	}
	return nil
}

// Render renders the source with vars; the subject and the text template
// are Handlebars in both formats, and without a text template the text is
// the engine's own (React Email's plain-text render) or generated from the
// HTML (D38).
func (e *Engine) Render(ctx context.Context, src carteiro.TemplateSource, vars *carteiro.JSONObject) (carteiro.RenderedTemplate, error) {
	var out carteiro.RenderedTemplate
	eng, err := e.engine(src.Format)
	if err != nil {
		return out, err
	}
	if vars == nil {
		vars = carteiro.NewJSONObject(0)
	}
	if out.HTML, out.Text, err = eng.render(ctx, src.HTML, vars, src.Text == nil); err != nil {
		return out, err
	}
	if src.Subject != nil {
		if out.Subject, err = e.handlebars.renderPlain(ctx, *src.Subject, vars); err != nil {
			return out, err
		}
	}
	switch {
	case src.Text != nil:
		if out.Text, err = e.handlebars.renderPlain(ctx, *src.Text, vars); err != nil {
			return out, err
		}
	case out.Text == "":
		out.Text = render.HTMLToText(out.HTML)
	}
	return out, nil
}

// Format pretty-prints a source without changing what it renders.
func (e *Engine) Format(ctx context.Context, f carteiro.TemplateFormat, src string) (string, error) {
	return e.formatter.format(ctx, f, src)
}
