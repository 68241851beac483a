package templating

import (
	"context"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/render/worker"
)

// reactEngine renders React Email sources in worker processes under
// kernel-enforced memory limits (D61); the variables are the component's
// props. There is no in-process path: a server whose workers cannot start
// answers React renders with an error.
type reactEngine struct {
	pool *worker.Pool
}

func newReactEngine(cfg worker.Config) *reactEngine {
	return &reactEngine{pool: worker.NewPool(cfg)}
}

func (r *reactEngine) check(ctx context.Context, src string) error { return r.pool.Check(ctx, src) }

func (r *reactEngine) render(ctx context.Context, src string, vars *carteiro.JSONObject, wantText bool) (string, string, error) {
	return r.pool.Render(ctx, src, vars, wantText)
}

func (r *reactEngine) close() error {
	r.pool.Close()
	return nil
}
