package worker

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/render"
)

// hostileReact are template bodies that try to pass D61's limits, most of
// them inside a native built-in, where goja cannot interrupt: the limit
// each must end with. "*" is time or memory: a built-in that allocates
// slowly (goja's sparse arrays) may reach the time limit first on a busy
// machine; either way it ends within its bounds.
var hostileReact = []struct{ name, body, limit string }{
	{"Array(n).fill", `const r = new Array(1e9).fill(1).length; return <p>{r}</p>;`, "*"},
	{"Array.from", `const a = Array.from({ length: 5e7 }); return <p>{a.length}</p>;`, "*"},
	{"typed array", `const a = new Float64Array(3e8); return <p>{a.length}</p>;`, "*"},
	{"typed arrays kept", `const k = []; for (let i = 0; i < 1000; i++) k.push(new Uint8Array(16e6)); return <p>{k.length}</p>;`, "*"},
	{"repeat", `const s = "x".repeat(1e9); return <p>{s.length}</p>;`, "*"},
	{"padStart", `const s = "".padStart(2e9, "y"); return <p>{s.length}</p>;`, "*"},
	{"spread", `const a = [...new Array(2e8).keys()]; return <p>{a.length}</p>;`, "*"},
	{"JSON.stringify", `const a = new Array(5e6).fill("abcdefghij"); const s = JSON.stringify([a, a, a, a, a, a, a, a]); return <p>{s.length}</p>;`, "*"},
	{"catastrophic regexp", `const m = /^((a+)+)\2$/.test("a".repeat(40) + "b"); return <p>{String(m)}</p>;`, "time"},
	{"deep recursion", `const f = (n) => f(n + 1) + 1; return <p>{f(0)}</p>;`, ""},
	{"infinite loop", `while (true) {} return <p />;`, "time"},
}

func hostileSource(body string) string {
	return `export default function Hostile() { ` + body + ` }`
}

// TestHostileReactD61 runs the hostile templates two at a time in a pool of
// two workers: each ends with its limit within twice the time limit, no
// worker passes its data limit, and a normal render right after succeeds.
func TestHostileReactD61(t *testing.T) {
	limits := render.DefaultLimits()
	pool := NewPool(Config{Limits: limits, Workers: 2})
	defer pool.Close()
	// Start both workers: a worker's start is not part of a render's time.
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := pool.Render(context.Background(), okTemplate, map[string]any{"name": "Ana"}, false); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	sem := make(chan struct{}, 2)
	for _, c := range hostileReact {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			start := time.Now()
			_, _, err := pool.Render(context.Background(), hostileSource(c.body), nil, true)
			took := time.Since(start)
			var re *render.RenderError
			switch {
			case errors.Is(err, ErrBusy) && took >= limits.Timeout:
				// Waited its 2 s for a worker being replaced after another
				// case's kill: a retryable 503, not the template's limit.
			case raceEnabled && errors.As(err, &re):
			case errors.As(err, &re) && re.Limit == "time" && took >= limits.Timeout:
				// Its 2 s ran out, possibly waiting for a worker being
				// replaced after another case's kill.
			case !errors.As(err, &re):
				t.Errorf("%s: want a render error, got %v", c.name, err)
			case c.limit == "*" && re.Limit != "time" && re.Limit != "memory", c.limit != "*" && re.Limit != c.limit:
				t.Errorf("%s: want the %q limit, got %+v", c.name, c.limit, re)
			}
			if took > 2*limits.Timeout && !raceEnabled {
				t.Errorf("%s: took %v, over twice the %v limit", c.name, took, limits.Timeout)
			}
			t.Logf("%s: %v in %v", c.name, err, took)
		}()
	}
	wg.Wait()
	html, err := renderOnceFree(pool)
	if err != nil || !strings.Contains(html, "Ana") {
		t.Fatalf("a normal render after them: %v %q", err, html)
	}
	if peak, limit := pool.PeakRSS(), limits.MemoryBytes+DefaultCacheMemory+256<<20; peak > limit {
		t.Errorf("a worker's peak RSS was %d MB", peak>>20)
	} else {
		t.Logf("workers' peak RSS: %d MB", peak>>20)
	}
}

// renderOnceFree renders okTemplate, trying again while the pool answers
// busy: workers killed by the hostile cases are replaced in the background,
// which takes seconds under the race detector. The pool must be healthy
// again within a minute.
func renderOnceFree(pool *Pool) (string, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		html, _, err := pool.Render(context.Background(), okTemplate, map[string]any{"name": "Ana"}, false)
		if !errors.Is(err, ErrBusy) || time.Now().After(deadline) {
			return html, err
		}
	}
}

const okTemplate = `import { Html, Text } from "@react-email/components";
export default function Ok({ name }) { return <Html><Text>Hello {name}</Text></Html>; }`
