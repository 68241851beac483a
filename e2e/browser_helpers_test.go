package e2e

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/carteiro/carteiro/internal/testserver"
)

// axeSource is axe-core 4.14.1 (testdata/axe/README.md), injected into
// pages for the accessibility checks of issue 26.
//
//go:embed testdata/axe/axe.min.js
var axeSource string

// browser is a headless Chromium driven over the DevTools protocol
// (chromedp), for the dashboard's tests (issue 26). It may load only
// 127.0.0.1: every host name resolves to nothing, every other address goes
// to a dead proxy, Google's background services are off, and each request a
// page makes is checked (offLoopback).
type browser struct {
	ctx  context.Context
	t    *testing.T
	name string

	mu          sync.Mutex
	offLoopback []string
	pageErrors  []string
}

// chromiumPath finds Debian's chromium (.ci/run installs it); in CI a
// missing browser fails the test rather than skipping it.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("CARTEIRO_TEST_CHROMIUM"), "chromium", "chromium-browser"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testserver.RequireService(t, "Chromium (Debian package chromium)", fmt.Errorf("not found in PATH"))
	return ""
}

func newBrowser(t *testing.T, name string) *browser {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Headless,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.DisableGPU,
		chromedp.NoSandbox, // tests run as root in CI containers
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("disable-client-side-phishing-detection", true),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("safebrowsing-disable-auto-update", true),
		chromedp.Flag("disable-features", "Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,AutofillServerCommunication,CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions"),
		// Nothing but 127.0.0.1 can be reached: names resolve to nothing,
		// and any address other than loopback goes through a proxy that
		// does not exist (loopback never uses the proxy).
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"),
		chromedp.ProxyServer("http://127.0.0.1:9"),
		chromedp.Flag("proxy-bypass-list", "127.0.0.1"),
		chromedp.Flag("lang", "en-US"),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	b := &browser{ctx: ctx, t: t, name: name}
	stop := func() { cancelCtx(); cancelAlloc() }
	// Listen starts the browser; no timeout on this first call, since a
	// timeout there would stop the whole browser (chromedp.Run).
	if err := chromedp.Listen(ctx, b.watch); err != nil {
		stop()
		t.Fatalf("start Chromium: %v", err)
	}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			// A failed response (the 401 of /me before signing in) is the
			// network's business, not the page's.
			if m.IsException() || (m.Type == "error" && m.Source != "network") {
				b.mu.Lock()
				b.pageErrors = append(b.pageErrors, m.String())
				b.mu.Unlock()
			}
		}
	}()
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		stop()
		t.Fatalf("network.enable: %v", err)
	}
	b.acceptLanguage("en-US,en;q=0.9")
	t.Cleanup(func() {
		if t.Failed() {
			b.screenshot("failure-" + strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()))
		}
		stop()
		b.mu.Lock()
		defer b.mu.Unlock()
		if len(b.offLoopback) > 0 {
			t.Errorf("Chromium tried to load addresses other than 127.0.0.1: %v", b.offLoopback)
		}
	})
	return b
}

// acceptLanguage sets the Accept-Language header of the page's requests.
func (b *browser) acceptLanguage(v string) {
	b.t.Helper()
	if _, err := chromedp.Call(b.ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{
		Headers: network.Headers{"Accept-Language": v}}); err != nil {
		b.t.Fatalf("set Accept-Language: %v", err)
	}
}

// watch records every request a page makes that is not for 127.0.0.1
// (data:, blob: and about: stay in the browser).
func (b *browser) watch(ev any) {
	e, ok := ev.(*network.EventRequestWillBeSent)
	if !ok {
		return
	}
	u, err := url.Parse(e.Request.URL)
	if err == nil && (u.Scheme == "data" || u.Scheme == "blob" || u.Scheme == "about" || u.Hostname() == "127.0.0.1") {
		return
	}
	b.mu.Lock()
	b.offLoopback = append(b.offLoopback, e.Request.URL)
	b.mu.Unlock()
}

// errors returns the page errors seen so far and forgets them.
func (b *browser) errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.pageErrors
	b.pageErrors = nil
	return out
}

// do runs steps, failing the test (with a screenshot) on error.
func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v (page errors: %v)", what, err, b.errors())
	}
}

// eval evaluates a script (awaiting a promise) and decodes its result.
func eval[T any](b *browser, script string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](script, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("evaluate %.60q: %v (page errors: %v)", script, err, b.errors())
	}
	return v
}

// open loads a dashboard URL.
func (b *browser) open(u string) {
	b.t.Helper()
	b.do("open "+u, chromedp.Navigate(u))
}

// click clicks the element sel (a CSS selector) once it is visible.
func (b *browser) click(sel string) {
	b.t.Helper()
	b.do("click "+sel, chromedp.WaitVisible(chromedp.CSS(sel)), chromedp.Click(chromedp.CSS(sel)))
}

// fill types v into the field sel.
func (b *browser) fill(sel, v string) {
	b.t.Helper()
	b.do("fill "+sel, chromedp.WaitVisible(chromedp.CSS(sel)), chromedp.SetValue(chromedp.CSS(sel), v))
}

// choose selects value in the <select> sel, as a person would (a change
// event follows).
func (b *browser) choose(sel, value string) {
	b.t.Helper()
	eval[bool](b, fmt.Sprintf(`(s => { s.value = %q; s.dispatchEvent(new Event('change')); return true })(document.querySelector(%q))`, value, sel))
}

// setFile puts a file in the file input sel.
func (b *browser) setFile(sel, path string) {
	b.t.Helper()
	b.do("upload to "+sel, chromedp.WaitReady(chromedp.CSS(sel)), chromedp.SetUploadFiles(chromedp.CSS(sel), []string{path}))
}

// text waits for sel and returns its visible text.
func (b *browser) text(sel string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(sel))); err != nil {
		b.t.Fatalf("wait for %s: %v (page errors: %v)", sel, err, b.errors())
	}
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		b.t.Fatalf("read %s: %v", sel, err)
	}
	return s
}

// waitText waits until the text of sel contains want.
func (b *browser) waitText(sel, want string) {
	b.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](
			fmt.Sprintf("(document.querySelector(%q) || {}).innerText || ''", sel)))
		cancel()
		if err == nil {
			last = s
			if strings.Contains(last, want) {
				return
			}
		}
		time.Sleep(150 * time.Millisecond)
	}
	b.t.Fatalf("%s never showed %q; last text %q (page errors: %v)", sel, want, last, b.errors())
}

// artifactsDir is where failure screenshots go: CARTEIRO_TEST_ARTIFACTS
// when set (CI keeps it), else a directory that outlives the test.
func artifactsDir(t *testing.T) string {
	if d := os.Getenv("CARTEIRO_TEST_ARTIFACTS"); d != "" {
		return d
	}
	d, err := os.MkdirTemp("", "carteiro-browser-")
	if err != nil {
		t.Logf("screenshot dir: %v", err)
		return ""
	}
	return d
}

func (b *browser) screenshot(name string) {
	dir := artifactsDir(b.t)
	if dir == "" {
		return
	}
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Logf("screenshot: %v", err)
		return
	}
	p := filepath.Join(dir, b.name+"-"+name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		b.t.Logf("screenshot: %v", err)
		return
	}
	b.t.Logf("screenshot saved: %s", p)
}

// docShot writes the page as docs/img/dashboard/<name>.png when
// CARTEIRO_DASHBOARD_SCREENSHOTS names that directory (docs/dashboard.md).
func (b *browser) docShot(name string) {
	dir := os.Getenv("CARTEIRO_DASHBOARD_SCREENSHOTS")
	if dir == "" || b.name != string(testserver.SQLite) {
		return
	}
	time.Sleep(300 * time.Millisecond) // let the last poll and fonts settle
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		b.t.Errorf("write screenshot: %v", err)
	}
}

type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any `json:"target"`
	} `json:"nodes"`
}

// checkA11y runs axe-core on the current page and fails on every serious or
// critical violation (issue 26), and on any script error or CSP refusal the
// page has had.
func (b *browser) checkA11y(page string) {
	b.t.Helper()
	b.do("inject axe on "+page, chromedp.Evaluate[chromedp.Void]("if (!window.axe) {"+axeSource+"\n}"))
	raw := eval[string](b, `axe.run(document, {resultTypes: ['violations']}).then(r => JSON.stringify(r.violations))`)
	var vs []axeViolation
	if err := json.Unmarshal([]byte(raw), &vs); err != nil {
		b.t.Fatalf("axe result on %s: %v", page, err)
	}
	for _, v := range vs {
		if v.Impact == "serious" || v.Impact == "critical" {
			var where []string
			for _, n := range v.Nodes {
				where = append(where, fmt.Sprint(n.Target...))
			}
			b.t.Errorf("%s: accessibility (%s) %s: %s at %v", page, v.Impact, v.ID, v.Help, where)
		}
	}
	if errs := b.errors(); len(errs) > 0 {
		b.t.Errorf("%s: page errors: %v", page, errs)
	}
}
