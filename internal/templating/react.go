package templating

import (
	"context"

	"github.com/carteiro/carteiro/internal/render"
	"github.com/carteiro/carteiro/internal/render/reactemail"
)

// reactEngine renders React Email sources in-process (D37); the variables
// are the component's props.
type reactEngine struct {
	renderer *reactemail.Renderer
}

func newReactEngine(limits render.Limits) (*reactEngine, error) {
	return &reactEngine{renderer: reactemail.New(limits)}, nil
}

func (r *reactEngine) check(ctx context.Context, src string) error { return r.renderer.Check(ctx, src) }

func (r *reactEngine) render(ctx context.Context, src string, vars map[string]any, wantText bool) (string, string, error) {
	return r.renderer.Render(ctx, src, vars, wantText)
}

func (r *reactEngine) close() error {
	r.renderer.Close()
	return nil
}
