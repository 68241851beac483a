package reactemail

import (
	"context"
	_ "embed"

	"github.com/carteiro/carteiro/internal/render"
)

//go:embed runtime/formatter.js
var formatterJS string

// Formatter pretty-prints React Email sources with Prettier (its standalone
// build and TypeScript parser, in the engine), keeping comments and types.
// One engine, created on first use (Prettier takes a few hundred ms to
// load), so formats run one at a time.
type Formatter struct {
	pool *enginePool
}

// NewFormatter makes a Formatter bounded by limits' time.
func NewFormatter(limits render.Limits) *Formatter {
	return &Formatter{pool: newEnginePool(1, limits, "formatter.js", formatterJS)}
}

// Format returns src pretty-printed, or a *render.SyntaxError with the
// position Prettier reports.
func (f *Formatter) Format(ctx context.Context, src string) (string, error) {
	e, err := f.pool.get(ctx)
	if err != nil {
		return "", err
	}
	out, err := e.format(ctx, src)
	f.pool.put(e, err)
	return out, err
}

// Close drops the engine.
func (f *Formatter) Close() { f.pool.close() }
