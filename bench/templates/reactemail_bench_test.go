package templates

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/render"
	"github.com/carteiro/carteiro/internal/render/reactemail"
)

// The reference templates of the React Email renderer's tests.
const reactTestdata = "../../internal/render/reactemail/testdata/"

func reactTemplate(b *testing.B, name, ext string) (string, map[string]any) {
	b.Helper()
	src, err := os.ReadFile(reactTestdata + name + ext)
	if err != nil {
		b.Fatal(err)
	}
	raw, err := os.ReadFile(reactTestdata + name + ".props.json")
	if err != nil {
		b.Fatal(err)
	}
	var props map[string]any
	if err := json.Unmarshal(raw, &props); err != nil {
		b.Fatal(err)
	}
	return string(src), props
}

// BenchmarkReactEmailWarm is the median warm render of the target:
// a pooled engine with the template loaded, HTML only and HTML plus the
// plain-text version.
func BenchmarkReactEmailWarm(b *testing.B) {
	for _, tc := range []struct{ name, ext string }{{"welcome", ".tsx"}, {"receipt", ".jsx"}, {"notice", ".tsx"}, {"tailwind", ".tsx"}, {"docs", ".tsx"}} {
		for _, withText := range []bool{false, true} {
			label := tc.name + "/html"
			if withText {
				label += "+text"
			}
			b.Run(label, func(b *testing.B) {
				src, props := reactTemplate(b, tc.name, tc.ext)
				r := reactemail.New(render.DefaultLimits())
				defer r.Close()
				if _, _, err := r.Render(context.Background(), src, props, withText); err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, _, err := r.Render(context.Background(), src, props, withText); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkReactEmailFirstRender is the cost of the first render in a new
// Renderer: compiling the runtime, starting an engine, compiling and
// loading the template (and the extensions it uses: Tailwind; Markdown and
// CodeBlock for docs).
func BenchmarkReactEmailFirstRender(b *testing.B) {
	for _, tc := range []struct{ name, ext string }{{"welcome", ".tsx"}, {"tailwind", ".tsx"}, {"docs", ".tsx"}} {
		b.Run(tc.name, func(b *testing.B) {
			src, props := reactTemplate(b, tc.name, tc.ext)
			for i := 0; i < b.N; i++ {
				r := reactemail.New(render.DefaultLimits())
				if _, _, err := r.Render(context.Background(), src, props, true); err != nil {
					b.Fatal(err)
				}
				r.Close()
			}
		})
	}
}

// renders is how many renders BenchmarkReactEmailMemory makes.
var renders = flag.Int("renders", 10000, "renders of BenchmarkReactEmailMemory")

// BenchmarkReactEmailMemory renders the welcome template 10,000 times on one
// engine and reports the live heap after a GC at each 1,000 renders: flat
// means nothing accumulates between renders.
func BenchmarkReactEmailMemory(b *testing.B) {
	src, props := reactTemplate(b, "welcome", ".tsx")
	r := reactemail.New(render.DefaultLimits())
	defer r.Close()
	heap := func() float64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return float64(m.HeapAlloc) / (1 << 20)
	}
	for i := 0; i < b.N; i++ {
		start := time.Now()
		var first float64
		for n := 1; n <= *renders; n++ {
			if _, _, err := r.Render(context.Background(), src, props, true); err != nil {
				b.Fatal(err)
			}
			if n%1000 == 0 {
				h := heap()
				if n == 1000 {
					first = h
				}
				b.Logf("after %5d renders: heap %.1f MB (%.1f ms/render so far)", n, h, float64(time.Since(start).Milliseconds())/float64(n))
			}
		}
		b.ReportMetric(heap()-first, "MB-growth-1k-to-10k")
	}
}
