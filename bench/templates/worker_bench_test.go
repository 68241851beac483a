package templates

import (
	"context"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/render"
	"github.com/carteiro/carteiro/internal/render/worker"
)

// BenchmarkReactEmailWarmWorker is BenchmarkReactEmailWarm through the
// render worker pool the server uses since D61: the same warm render in a
// worker process, plus the request and the answer on its pipes. Compare
// the two in one run.
func BenchmarkReactEmailWarmWorker(b *testing.B) {
	for _, tc := range []struct{ name, ext string }{{"welcome", ".tsx"}, {"receipt", ".jsx"}, {"notice", ".tsx"}, {"tailwind", ".tsx"}} {
		for _, withText := range []bool{false, true} {
			label := tc.name + "/html"
			if withText {
				label += "+text"
			}
			b.Run(label, func(b *testing.B) {
				src, props := reactTemplate(b, tc.name, tc.ext)
				l := render.DefaultLimits()
				l.Timeout = 30 * time.Second // a busy machine: the first Tailwind render
				p := worker.NewPool(worker.Config{Limits: l, Workers: 1})
				defer p.Close()
				for range 3 { // the first renders load the template (and Tailwind)
					if _, _, err := p.Render(context.Background(), src, props, withText); err != nil {
						b.Fatal(err)
					}
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, _, err := p.Render(context.Background(), src, props, withText); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
