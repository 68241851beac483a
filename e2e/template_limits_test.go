package e2e

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

// hostileTemplate is a preview request that tries to pass one of D61's
// limits, and what it must end with: 422 with code and details.reason
// ("*" is time or memory: a built-in that allocates slowly may reach the
// time limit first on a busy machine, and a render that waits for a worker
// being replaced after a kill spends its 2 s waiting; "" is a render error that is no
// limit, such as recursion).
type hostileTemplate struct {
	name, format, html string
	variables          map[string]any
	code, reason       string
}

func hostileTemplates() []hostileTemplate {
	react := func(name, body, reason string) hostileTemplate {
		return hostileTemplate{name: "react " + name, format: "react", code: "TEMPLATE_RENDER_ERROR", reason: reason,
			html: `export default function Hostile() { ` + body + ` }`}
	}
	many := make([]any, 2000)
	for i := range many {
		many[i] = i
	}
	nested := func(n int) string {
		return "{{" + strings.Repeat("lookup (", n) + "a" + strings.Repeat(` "k")`, n) + "}}"
	}
	return []hostileTemplate{
		react("Array(n).fill", `const r = new Array(1e9).fill(1).length; return <p>{r}</p>;`, "*"),
		react("Array.from", `const a = Array.from({ length: 5e7 }); return <p>{a.length}</p>;`, "*"),
		react("typed array", `const a = new Float64Array(3e8); return <p>{a.length}</p>;`, "*"),
		react("typed arrays kept", `const k = []; for (let i = 0; i < 1000; i++) k.push(new Uint8Array(16e6)); return <p>{k.length}</p>;`, "*"),
		react("repeat", `const s = "x".repeat(1e9); return <p>{s.length}</p>;`, "*"),
		react("padStart", `const s = "".padStart(2e9, "y"); return <p>{s.length}</p>;`, "*"),
		react("spread", `const a = [...new Array(2e8).keys()]; return <p>{a.length}</p>;`, "*"),
		react("JSON.stringify", `const a = new Array(5e6).fill("abcdefghij"); const s = JSON.stringify([a, a, a, a, a, a, a, a]); return <p>{s.length}</p>;`, "*"),
		react("catastrophic regexp", `const m = /^((a+)+)\2$/.test("a".repeat(40) + "b"); return <p>{String(m)}</p>;`, "time"),
		react("deep recursion", `const f = (n) => f(n + 1) + 1; return <p>{f(0)}</p>;`, ""),
		react("infinite loop", `while (true) {} return <p />;`, "time"),
		react("output", `return <p>{"z".repeat(6e6)}</p>;`, "output"),
		{name: "handlebars output", format: "handlebars", html: "{{#each a}}{{#each ../a}}{{../../s}}{{/each}}{{/each}}",
			variables: map[string]any{"a": many, "s": strings.Repeat("x", 1000)}, code: "TEMPLATE_RENDER_ERROR", reason: "output"},
		{name: "handlebars time", format: "handlebars", html: "{{#each a}}{{#each ../a}}{{#each ../../a}}{{/each}}{{/each}}{{/each}}",
			variables: map[string]any{"a": many}, code: "TEMPLATE_RENDER_ERROR", reason: "time"},
		{name: "handlebars recursive partial", format: "handlebars", html: `{{#*inline "p"}}{{> p}}{{/inline}}{{> p}}`,
			code: "TEMPLATE_RENDER_ERROR", reason: ""},
		// 480 KB of nested (lookup ...): parsed in linear time and refused
		// for its nesting (it took 14.5 s to parse, before the deadline).
		{name: "handlebars 480 KB nested lookups", format: "handlebars", html: nested(480 << 10 / 13),
			code: "TEMPLATE_SYNTAX_ERROR"},
	}
}

// TestHostileTemplatesStayWithinLimitsD61 sends the hostile corpus four at
// a time to POST /templates/preview on each store: each ends with its 422
// and reason within twice the 2 s limit, the server's resident memory
// stays under its baseline plus 4 x 64 MB plus 100 MB (the React renders
// run in worker processes under a kernel memory limit, so the server
// barely moves), and a normal render of each format right after succeeds.
// The stores run one after the other: both servers live in this process,
// whose memory is what is measured. Not parallel with other tests for the
// same reason: their servers would share that memory.
func TestHostileTemplatesStayWithinLimitsD61(t *testing.T) {
	for _, b := range testserver.Backends() {
		t.Run(string(b), func(t *testing.T) {
			ts := testserver.StartServer(t, b, map[string]string{"CARTEIRO_RENDER_WORKERS": "4"})
			okReact := map[string]any{"format": "react", "html": `export default ({ name }) => <p>Olá {name}</p>;`,
				"variables": map[string]any{"name": "Ana"}}
			okHandlebars := map[string]any{"format": "handlebars", "html": `<p>Olá {{name}}</p>`, "variables": map[string]any{"name": "Ana"}}
			// Start the workers: their start is not part of the baseline.
			var wg sync.WaitGroup
			for range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					testserver.Expect(t, templateReq(ts, t, "POST", "/preview", okReact), 200, "")
				}()
			}
			wg.Wait()
			baseline := rssOf(t, os.Getpid())
			bound := baseline + 4*64<<20 + 100<<20
			watch := watchMemory(t)

			sem := make(chan struct{}, 4)
			for _, c := range hostileTemplates() {
				wg.Add(1)
				go func() {
					defer wg.Done()
					sem <- struct{}{}
					defer func() { <-sem }()
					body := map[string]any{"format": c.format, "html": c.html, "variables": c.variables}
					start := time.Now()
					r := templateReq(ts, t, "POST", "/preview", body)
					took := time.Since(start)
					if r.Status == 503 && took >= 2*time.Second && r.Header.Get("Retry-After") != "" {
						// Waited its 2 s for a worker being replaced after
						// another case's kill: busy, retryable, not the
						// template's limit.
						t.Logf("%s: 503 busy after %v", c.name, took)
						return
					}
					testserver.Expect(t, r, 422, c.code)
					details, _ := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)
					reason, _ := details["reason"].(string)
					switch {
					case c.code != "TEMPLATE_RENDER_ERROR", raceEnabled:
					case reason == "time" && took >= 2*time.Second:
						// Its 2 s ran out, possibly waiting for a worker
						// being replaced after another case's kill.
					case c.reason == "*" && reason != "time" && reason != "memory",
						c.reason == "" && (reason == "time" || reason == "memory" || reason == "output"),
						c.reason != "*" && c.reason != "" && reason != c.reason:
						t.Errorf("%s: reason %q, want %q", c.name, reason, c.reason)
					}
					if took > 4*time.Second && !raceEnabled {
						t.Errorf("%s: answered after %v, over twice the 2 s limit", c.name, took)
					}
					t.Logf("%s: %s %q in %v", c.name, r.ErrorCode(), reason, took)
				}()
			}
			wg.Wait()
			server, workers := watch()
			t.Logf("server RSS: baseline %d MB, peak %d MB (bound %d MB); workers' peak RSS %d MB",
				baseline>>20, server>>20, bound>>20, workers>>20)
			testserver.Must(t, server < bound, "the server's RSS reached %d MB, over %d MB", server>>20, bound>>20)

			// Killed workers are replaced in the background; until then a
			// render may find every worker busy (503 with Retry-After).
			r := templateReq(ts, t, "POST", "/preview", okReact)
			for deadline := time.Now().Add(time.Minute); r.Status == 503 && time.Now().Before(deadline); {
				time.Sleep(100 * time.Millisecond)
				r = templateReq(ts, t, "POST", "/preview", okReact)
			}
			testserver.Expect(t, r, 200, "")
			testserver.Must(t, strings.Contains(r.JSON(t)["html"].(string), "Olá <!-- -->Ana"), "react after: %s", r.Body)
			r = templateReq(ts, t, "POST", "/preview", okHandlebars)
			testserver.Expect(t, r, 200, "")
			testserver.Must(t, r.JSON(t)["html"] == "<p>Olá Ana</p>", "handlebars after: %s", r.Body)
		})
	}
}

// watchMemory samples this process's resident memory and its children's
// (the render workers) until the returned function is called, which gives
// the peaks.
func watchMemory(t *testing.T) func() (server, workers int64) {
	stop := make(chan struct{})
	done := make(chan struct{})
	var server, workers int64
	go func() {
		defer close(done)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for n := 0; ; n++ {
			server = max(server, rssOf(t, os.Getpid()))
			if n%5 == 0 {
				for _, pid := range childrenOf(os.Getpid()) {
					workers = max(workers, rssOf(t, pid))
				}
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return func() (int64, int64) {
		close(stop)
		<-done
		return server, workers
	}
}

// rssOf reads VmRSS from /proc (0 for a process that has gone).
func rssOf(t *testing.T, pid int) int64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Errorf("VmRSS %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	return 0
}

// childrenOf lists the processes whose parent is pid.
func childrenOf(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after its ")".
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) > 1 {
			if ppid, _ := strconv.Atoi(fields[1]); ppid == pid {
				pids = append(pids, child)
			}
		}
	}
	return pids
}
