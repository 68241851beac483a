package reactemail

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/metrics"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"

	"github.com/carteiro/carteiro/internal/render"
)

// maxCallStack bounds recursion in a render: deep enough for any email
// layout, far from exhausting the goroutine's stack.
const maxCallStack = 4096

// componentsPerEngine bounds the loaded templates an engine keeps.
const componentsPerEngine = 128

// programs holds the setup and a bundle (the React Email runtime or the
// formatter) compiled once per pool; every engine of the pool runs the
// same compiled programs.
type programs struct {
	name, source string
	once         sync.Once
	setup        *goja.Program
	bundle       *goja.Program
	err          error

	extensions extensionPrograms
}

func (p *programs) get() (setup, bundle *goja.Program, err error) {
	p.once.Do(func() {
		if p.setup, p.err = goja.Compile("setup.js", setupJS, true); p.err != nil {
			return
		}
		p.bundle, p.err = goja.Compile(p.name, p.source, false)
	})
	return p.setup, p.bundle, p.err
}

// engine is one goja runtime with React Email loaded. One render at a time.
type engine struct {
	vm         *goja.Runtime
	limits     render.Limits
	api        *goja.Object
	renderFn   goja.Callable
	formatFn   goja.Callable
	runTask    goja.Callable
	reset      goja.Callable
	load       goja.Callable
	components map[[32]byte]goja.Value
	progs      *programs
	// extensions holds the exports of the extensions loaded so far.
	extensions   map[string]goja.Value
	setCodeBlock goja.Callable
}

// memoryLimitMessage ends the RangeError setup.js throws for a string
// built-in asked for a result over the memory limit.
const memoryLimitMessage = "result over the render's memory limit"

// scriptErr reports an exception thrown by the template (or by React on
// its behalf), naming the memory limit when setup.js's guard threw it.
func scriptErr(msg string) error {
	if strings.HasSuffix(msg, memoryLimitMessage) {
		return &render.RenderError{Reason: msg, Limit: "memory"}
	}
	return renderErr("%s", msg)
}

// limitHit is the value an interrupt carries: which limit ended the render.
type limitHit string

func newEngine(progs *programs, limits render.Limits) (*engine, error) {
	setup, rt, err := progs.get()
	if err != nil {
		return nil, fmt.Errorf("reactemail: compile runtime: %w", err)
	}
	vm := goja.New()
	vm.SetMaxCallStackSize(maxCallStack)
	_ = vm.Set("__maxStringChars", limits.MemoryBytes/2)
	_ = vm.Set("__maxOutputChars", limits.OutputBytes)
	_ = vm.Set("__goEncode", func(s string) goja.ArrayBuffer { return vm.NewArrayBuffer([]byte(s)) })
	_ = vm.Set("__goDecode", func(buf goja.ArrayBuffer, offset, length int) (string, error) {
		b := buf.Bytes()
		if offset < 0 || length < 0 || offset+length > len(b) {
			return "", errors.New("TextDecoder: bad view")
		}
		return strings.ToValidUTF8(string(b[offset:offset+length]), "\uFFFD"), nil
	})
	// The UTF-8 length of a string, as Node's Buffer.byteLength gives it
	// (a lone surrogate counts as U+FFFD, three bytes, as it is encoded).
	// Called for every piece of markup React writes, so it takes its
	// argument as is rather than through goja's reflection.
	_ = vm.Set("__goByteLength", func(call goja.FunctionCall) goja.Value {
		return vm.ToValue(len(call.Argument(0).String()))
	})
	_ = vm.Set("__goAtob", func(s string) (string, error) {
		b, err := base64.StdEncoding.DecodeString(strings.Map(dropSpace, s))
		if err != nil {
			return "", errors.New("atob: not base64")
		}
		r := make([]rune, len(b))
		for i, c := range b {
			r[i] = rune(c)
		}
		return string(r), nil
	})
	if _, err := vm.RunProgram(setup); err != nil {
		return nil, fmt.Errorf("reactemail: setup: %w", err)
	}
	if _, err := vm.RunProgram(rt); err != nil {
		return nil, fmt.Errorf("reactemail: load %s: %w", progs.name, err)
	}
	e := &engine{vm: vm, limits: limits, api: vm.Get("__carteiro").ToObject(vm), components: map[[32]byte]goja.Value{}, progs: progs,
		extensions: map[string]goja.Value{}}
	for name, fn := range map[string]*goja.Callable{"render": &e.renderFn, "format": &e.formatFn, "runTask": &e.runTask,
		"reset": &e.reset, "load": &e.load} {
		f, ok := goja.AssertFunction(e.api.Get(name))
		if !ok {
			return nil, fmt.Errorf("reactemail: setup lacks %s", name)
		}
		*fn = f
	}
	if rt := vm.Get("__carteiroRuntime"); rt != nil && !goja.IsUndefined(rt) {
		// Only the engine may hand CodeBlock to the runtime's stand-in.
		rto := rt.ToObject(vm)
		if f, ok := goja.AssertFunction(rto.Get("setCodeBlock")); ok {
			e.setCodeBlock = f
			_ = rto.Delete("setCodeBlock")
		}
	}
	lockdown, _ := goja.AssertFunction(e.api.Get("lockdown"))
	if _, err := lockdown(goja.Undefined()); err != nil {
		return nil, fmt.Errorf("reactemail: lockdown: %w", err)
	}
	return e, nil
}

// component loads t in this engine (once) and returns its default export.
func (e *engine) component(t *template) (goja.Value, error) {
	if c, ok := e.components[t.key]; ok {
		return c, nil
	}
	for _, name := range t.extensions {
		if err := e.loadExtension(name); err != nil {
			return nil, err
		}
	}
	var c goja.Value
	err := e.guarded(context.Background(), func() error {
		factory, err := e.vm.RunProgram(t.program)
		if err != nil {
			return err
		}
		c, err = e.load(goja.Undefined(), factory, e.loadedExtensions())
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(e.components) >= componentsPerEngine {
		clear(e.components)
	}
	e.components[t.key] = c
	return c, nil
}

// render renders t with props, running the queued tasks until render()'s
// promise settles.
func (e *engine) render(ctx context.Context, t *template, props any, wantText bool) (html, text string, err error) {
	c, err := e.component(t)
	if err != nil {
		return "", "", err
	}
	propsJSON, err := json.Marshal(props)
	if err != nil {
		return "", "", renderErr("variables cannot be passed to the template: %v", err)
	}
	err = e.guarded(ctx, func() error {
		state, err := e.settle(e.renderFn, c, e.vm.ToValue(string(propsJSON)), e.vm.ToValue(wantText))
		if err != nil {
			return err
		}
		if msg := state.Get("error").String(); msg != "" {
			return scriptErr(msg)
		}
		html, text = state.Get("html").String(), state.Get("text").String()
		return nil
	})
	if err != nil {
		return "", "", err
	}
	if e.limits.OutputBytes > 0 && len(html) > e.limits.OutputBytes {
		return "", "", &render.RenderError{Reason: fmt.Sprintf("the HTML is %d bytes, over %d", len(html), e.limits.OutputBytes), Limit: "output"}
	}
	return html, text, nil
}

// settle calls start (render or format), then runs queued tasks until the
// state object it returned is done.
func (e *engine) settle(start goja.Callable, args ...goja.Value) (*goja.Object, error) {
	v, err := start(goja.Undefined(), args...)
	if err != nil {
		return nil, err
	}
	state := v.ToObject(e.vm)
	for !state.Get("done").ToBoolean() {
		ran, err := e.runTask(goja.Undefined())
		if err != nil {
			return nil, err
		}
		if !ran.ToBoolean() && !state.Get("done").ToBoolean() {
			return nil, renderErr("the template never finished rendering (a promise that never settles?)")
		}
	}
	// React leaves work queued after the document is complete (closing
	// the request, releasing its buffers); left in the queue it would run
	// in a later render and keep this render's memory alive.
	for {
		ran, err := e.runTask(goja.Undefined())
		if err != nil {
			return nil, err
		}
		if !ran.ToBoolean() {
			return state, nil
		}
	}
}

// format pretty-prints source with Prettier (the formatter's engines).
func (e *engine) format(ctx context.Context, source string) (string, error) {
	var out string
	err := e.guarded(ctx, func() error {
		state, err := e.settle(e.formatFn, e.vm.ToValue(source))
		if err != nil {
			return err
		}
		if msg := state.Get("error").String(); msg != "" {
			line, column := int(state.Get("line").ToInteger()), int(state.Get("column").ToInteger())
			if line > 0 {
				return &render.SyntaxError{Line: line, Column: column, Reason: firstLine(msg)}
			}
			return renderErr("%s", msg)
		}
		out = state.Get("html").String()
		return nil
	})
	return out, err
}

// firstLine drops the code frame Prettier appends to its messages.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// guarded runs fn under the render limits: a timer and the context
// interrupt the engine at the time limit, and a watcher interrupts it when
// the heap grows by more than the memory limit while it runs. Errors come
// back as *render.RenderError.
func (e *engine) guarded(ctx context.Context, fn func() error) error {
	done := make(chan struct{})
	defer close(done)
	stop := context.AfterFunc(ctx, func() { e.vm.Interrupt(limitHit("time")) })
	defer stop()
	if e.limits.Timeout > 0 {
		timer := time.AfterFunc(e.limits.Timeout, func() { e.vm.Interrupt(limitHit("time")) })
		defer timer.Stop()
	}
	if e.limits.MemoryBytes > 0 {
		go e.watchHeap(done)
	}
	err := fn()
	if err == nil {
		return nil
	}
	var interrupted *goja.InterruptedError
	if errors.As(err, &interrupted) {
		limit, _ := interrupted.Value().(limitHit)
		return &render.RenderError{Reason: "the render was stopped", Limit: string(limit)}
	}
	var re *render.RenderError
	var se *render.SyntaxError
	if errors.As(err, &re) || errors.As(err, &se) {
		return err
	}
	var exc *goja.Exception
	if errors.As(err, &exc) {
		return scriptErr(describe(exc.Value()))
	}
	var overflow *goja.StackOverflowError
	if errors.As(err, &overflow) {
		return renderErr("too much recursion")
	}
	return renderErr("%v", err)
}

// heapMetrics are what the watcher reads: the bytes in heap objects (live
// and not yet swept, updated as allocations happen) and the heap size at
// which the collector aims to finish its next cycle.
var heapMetrics = [2]string{"/memory/classes/heap/objects:bytes", "/gc/heap/goal:bytes"}

func heapNow() (objects, goal int64) {
	s := []metrics.Sample{{Name: heapMetrics[0]}, {Name: heapMetrics[1]}}
	metrics.Read(s)
	read := func(v metrics.Value) int64 {
		if v.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(v.Uint64())
	}
	return read(s[0].Value), read(s[1].Value)
}

// watchHeap interrupts the engine when the heap grows past the limit over
// the collector's goal at the start of the render (or over the heap then,
// when a collection is behind). Garbage alone keeps the
// heap under that goal (the collector runs first), so a render that
// allocates a lot but keeps little is not stopped; growing past it means
// memory is being kept faster than the collector frees it, as with a
// template that builds an ever-larger string. The heap is the process's, so
// this guards against a runaway template; it is not an accounting of one
// render.
func (e *engine) watchHeap(done <-chan struct{}) {
	objects, goal := heapNow()
	threshold := max(objects, goal) + e.limits.MemoryBytes
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
			if objects, _ := heapNow(); objects > threshold {
				e.vm.Interrupt(limitHit("memory"))
				return
			}
		}
	}
}

// dropSpace removes the ASCII whitespace atob ignores.
func dropSpace(r rune) rune {
	if r == ' ' || r == '\t' || r == '\n' || r == '\f' || r == '\r' {
		return -1
	}
	return r
}

func describe(v goja.Value) string {
	if o, ok := v.(*goja.Object); ok {
		if msg := o.Get("message"); msg != nil && !goja.IsUndefined(msg) {
			if name := o.Get("name"); name != nil && !goja.IsUndefined(name) {
				return name.String() + ": " + msg.String()
			}
			return msg.String()
		}
	}
	return v.String()
}

// enginePool keeps up to size engines; renders beyond size wait.
type enginePool struct {
	progs  programs
	limits render.Limits
	slots  chan struct{}
	idle   chan *engine
}

func newEnginePool(size int, limits render.Limits, name, bundle string) *enginePool {
	size = max(1, size)
	return &enginePool{progs: programs{name: name, source: bundle}, limits: limits,
		slots: make(chan struct{}, size), idle: make(chan *engine, size)}
}

func (p *enginePool) get(ctx context.Context) (*engine, error) {
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, &render.RenderError{Reason: "no engine free before the deadline", Limit: "time"}
	}
	select {
	case e := <-p.idle:
		return e, nil
	default:
	}
	e, err := newEngine(&p.progs, p.limits)
	if err != nil {
		<-p.slots
		return nil, err
	}
	return e, nil
}

// put returns e after a render. An engine that was interrupted may hold a
// half-run render, so it is dropped; after any other error its queued
// tasks are cleared.
func (p *enginePool) put(e *engine, renderErr error) {
	defer func() { <-p.slots }()
	var re *render.RenderError
	if errors.As(renderErr, &re) && re.Limit != "" && re.Limit != "output" {
		return
	}
	if renderErr != nil {
		if _, err := e.reset(goja.Undefined()); err != nil {
			return
		}
	}
	e.vm.ClearInterrupt()
	select {
	case p.idle <- e:
	default:
	}
}

func (p *enginePool) close() {
	for {
		select {
		case <-p.idle:
		default:
			return
		}
	}
}
