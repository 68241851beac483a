// Package worker renders React Email templates in a small pool of worker
// processes, each under a memory limit the kernel enforces (D61). goja can
// interrupt a script only between instructions, so a native built-in such
// as new Array(1e9).fill(1) or "x".repeat(n) would run to its end inside
// the server, past any watcher; in a worker the kernel refuses the memory,
// the worker dies and the render answers the memory limit, while the
// server and the other renders go on. A worker that overruns its time is
// killed. Workers are the server's own binary started again (see child.go),
// render one template at a time and keep their compiled templates, so warm
// renders stay fast.
package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/carteiro/carteiro/internal/render"
)

// Config sets up a Pool.
type Config struct {
	Limits render.Limits
	// Workers is how many worker processes render at once (default 2).
	Workers int
	// CacheMemory is room, on top of a warm worker's memory and one
	// render's Limits.MemoryBytes, for the templates a worker keeps and
	// the threads it starts. Default DefaultCacheMemory.
	CacheMemory int64
	// Command makes the command that starts a worker; by default this
	// executable with the argument render-worker.
	Command func() (*exec.Cmd, error)
	Logger  *slog.Logger
}

// DefaultCacheMemory leaves room for the compiled templates a worker
// keeps (256, and 128 loaded in its engine) and a few more threads' stacks.
const DefaultCacheMemory = 64 << 20

// DefaultWorkers suits two cores: renders beyond it wait for a worker,
// within their time limit.
const DefaultWorkers = 2

// killGrace is how long past its time budget the parent waits for a
// worker's own answer (the engine's interrupt) before killing it, which
// only a native built-in that never returns to the interpreter needs.
const killGrace = 300 * time.Millisecond

// readyWithin bounds a worker's start (compiling the runtime, warming the
// engine; slow under the race detector).
const readyWithin = time.Minute

// Pool renders through worker processes. It is safe for concurrent use.
type Pool struct {
	cfg Config
	// slots holds one entry per worker: a running process, or nil for a
	// slot whose process is yet to start (lazily, so serve starts fast).
	slots chan *process
	mu    sync.Mutex
	// closed is set by Close; a closed pool refuses renders.
	closed  bool
	peakRSS atomic.Int64
}

// NewPool makes a Pool; no process starts until the first render.
func NewPool(cfg Config) *Pool {
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.CacheMemory <= 0 {
		cfg.CacheMemory = DefaultCacheMemory
	}
	if cfg.Command == nil {
		cfg.Command = selfCommand
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	p := &Pool{cfg: cfg, slots: make(chan *process, cfg.Workers)}
	for range cfg.Workers {
		p.slots <- nil
	}
	return p
}

// selfCommand starts this executable as a worker.
func selfCommand() (*exec.Cmd, error) {
	if os.Getenv(envWorker) != "" {
		// A worker that did not become one (see child.go) must not start
		// workers of its own.
		return nil, errors.New("render worker: a worker process cannot start workers")
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("render worker: find the executable: %w", err)
	}
	return exec.Command(exe, "render-worker"), nil
}

// Render renders src with props (a value that encodes as a JSON object,
// whose member order the template sees) in a worker: the HTML and, when wantText,
// render()'s plain text. Errors are *render.SyntaxError and
// *render.RenderError as in the engine, plus the time and memory limits of
// a worker that had to be killed or died.
func (p *Pool) Render(ctx context.Context, src string, props any, wantText bool) (html, text string, err error) {
	propsJSON, err := json.Marshal(props)
	if err != nil {
		return "", "", &render.RenderError{Reason: "variables cannot be passed to the template: " + err.Error()}
	}
	resp, err := p.do(ctx, request{Op: opRender, Source: src, Props: propsJSON, WantText: wantText})
	if err != nil {
		return "", "", err
	}
	return resp.result()
}

// Check compiles and loads src in a worker (loading runs the module's top
// level, which is template code).
func (p *Pool) Check(ctx context.Context, src string) error {
	resp, err := p.do(ctx, request{Op: opCheck, Source: src})
	if err != nil {
		return err
	}
	_, _, err = resp.result()
	return err
}

// do runs a request in a free worker. The time limit counts from the call,
// waiting for a worker included, but not a worker's start.
func (p *Pool) do(ctx context.Context, req request) (response, error) {
	limit := p.cfg.Limits.Timeout
	start := time.Now()
	proc, err := p.acquire(ctx, limit)
	if err != nil {
		return response{}, err
	}
	waited := time.Since(start)
	if proc != nil && proc.hasExited(0) {
		// Ended while idle (killed from outside): not this render's doing.
		p.retired(proc)
		proc = nil
	}
	if proc == nil {
		if proc, err = p.startWorker(ctx); err != nil {
			p.slots <- nil
			return response{}, err
		}
	}
	req.Budget = limit - waited
	if limit <= 0 {
		req.Budget = render.DefaultLimits().Timeout
	}
	var resp response
	err = proc.exchange(ctx, req, &resp, p.maxResponse(), req.Budget+killGrace)
	if err != nil {
		proc.kill()
		p.replace(proc)
		return response{}, p.failure(proc, err)
	}
	if resp.Render != nil && resp.Render.Limit == "memory" {
		// The engine's watcher stopped it near the limit: start afresh
		// rather than keep a heap grown that far.
		go func() {
			proc.stop()
			p.replace(proc)
		}()
		return resp, nil
	}
	p.slots <- proc
	return resp, nil
}

// replace notes an ended worker and starts the next one in the
// background, so that the render after a killed one finds a warm worker
// rather than waiting for its start. A worker that cannot start leaves
// the slot empty; the next render tries again and reports why.
func (p *Pool) replace(ended *process) {
	p.retired(ended)
	go func() {
		p.mu.Lock()
		closed := p.closed
		p.mu.Unlock()
		var next *process
		if !closed {
			next, _ = p.startWorker(context.Background())
		}
		p.slots <- next
	}()
}

// ErrBusy is returned when no worker was free within a render's time limit.
// It wraps context.DeadlineExceeded, which the use cases answer 503
// SERVICE_UNAVAILABLE with Retry-After.
var ErrBusy = errors.New("render worker: every worker is busy")

// acquire waits for a free slot until the time limit.
func (p *Pool) acquire(ctx context.Context, limit time.Duration) (*process, error) {
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return nil, errors.New("render worker: the pool is closed")
	}
	wait := ctx
	if limit > 0 {
		var cancel context.CancelFunc
		wait, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}
	select {
	case proc := <-p.slots:
		return proc, nil
	case <-wait.Done():
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Not the template's doing: the pool was busy (or replacing killed
		// workers), so the caller is told to try again (503), not that its
		// template is too slow.
		return nil, fmt.Errorf("%w: none free within %v: %w", ErrBusy, limit, context.DeadlineExceeded)
	}
}

func (p *Pool) startWorker(ctx context.Context) (*process, error) {
	cmd, err := p.cfg.Command()
	if err != nil {
		return nil, err
	}
	h := hello{Limits: p.cfg.Limits, Headroom: p.cfg.CacheMemory + p.cfg.Limits.MemoryBytes}
	proc, err := startProcess(ctx, cmd, h, readyWithin)
	if err != nil {
		return nil, err
	}
	p.cfg.Logger.Debug("render worker started", "pid", proc.pid, "dataLimit", proc.dataLimit)
	return proc, nil
}

// maxResponse bounds a worker's answer: the HTML within the output limit
// and its plain text, JSON-escaped.
func (p *Pool) maxResponse() int {
	out := p.cfg.Limits.OutputBytes
	if out <= 0 {
		out = render.DefaultLimits().OutputBytes
	}
	return 12*out + 1<<20
}

// failure turns a killed or dead worker into the render's answer.
func (p *Pool) failure(proc *process, err error) error {
	switch {
	case errors.Is(err, errOverTime):
		return &render.RenderError{Reason: "the render took longer than the limit", Limit: "time"}
	case errors.Is(err, errDied):
		p.cfg.Logger.Info("render worker died during a render; answered as over the memory limit",
			"pid", proc.pid, "stderr", firstLines(proc.stderr.String(), 3))
		return &render.RenderError{Reason: "the render used more memory than the limit", Limit: "memory"}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return fmt.Errorf("render worker: %w", err)
}

// Close stops the workers, waiting for running renders (each bounded by
// the time limit).
func (p *Pool) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.mu.Unlock()
	for range p.cfg.Workers {
		if proc := <-p.slots; proc != nil {
			proc.stop()
			p.retired(proc)
		}
	}
}

// retired notes an ended worker's peak memory.
func (p *Pool) retired(proc *process) {
	for {
		peak := p.peakRSS.Load()
		if proc.peakRSS <= peak || p.peakRSS.CompareAndSwap(peak, proc.peakRSS) {
			return
		}
	}
}

// PeakRSS is the highest peak resident memory of the workers that have
// ended so far (killed, died or stopped), as the kernel reported it.
func (p *Pool) PeakRSS() int64 { return p.peakRSS.Load() }

func firstLines(s string, n int) string {
	lines := 0
	for i, c := range s {
		if c == '\n' {
			if lines++; lines == n {
				return s[:i]
			}
		}
	}
	return s
}
