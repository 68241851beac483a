package handlebars

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/carteiro/carteiro/internal/render"
)

// maxNesting bounds programs and partials inside each other: a partial
// that includes itself would otherwise recurse until the stack runs out.
const maxNesting = 256

// checkEvery is how many statements run between checks of the clock.
const checkEvery = 256

// errOutput and errTime end a render from deep inside; Render turns them
// into a *render.RenderError.
var (
	errOutput = errors.New("output limit")
	errTime   = errors.New("time limit")
)

// renderer holds the state of one render.
type renderer struct {
	out      *strings.Builder
	maxOut   int
	ctx      context.Context
	deadline time.Time
	steps    int
	nesting  int
	noEscape bool
}

// frame is the scope a program runs in.
type frame struct {
	ctx any
	// depths[0] is ctx; depths[n] is what ../ n times names. A program run
	// with the context it was given by its parent adds no depth, as in
	// handlebars.js.
	depths   []any
	data     *dataFrame
	params   *paramScope
	partials *partialScope
}

// dataFrame holds the @variables. Children copy their parent's values, as
// handlebars.js's createFrame does, and keep a link for @../name.
type dataFrame struct {
	root         any
	index, key   any
	first, last  any
	partialBlock *boundBlock
	parent       *dataFrame
}

func (d *dataFrame) child() *dataFrame {
	c := *d
	c.parent = d
	return &c
}

func (d *dataFrame) get(name string) any {
	switch name {
	case "root":
		return d.root
	case "index":
		return d.index
	case "key":
		return d.key
	case "first":
		return d.first
	case "last":
		return d.last
	}
	return nil
}

// paramScope holds the block parameters (as |a b|) in scope.
type paramScope struct {
	names  []string
	values []any
	parent *paramScope
}

func (s *paramScope) lookup(name string) (any, bool) {
	for ; s != nil; s = s.parent {
		for i, n := range s.names {
			if n == name {
				if i < len(s.values) {
					return s.values[i], true
				}
				return nil, true
			}
		}
	}
	return nil, false
}

// partialScope holds the inline partials in scope.
type partialScope struct {
	parts  map[string]*program
	parent *partialScope
}

func (s *partialScope) lookup(name string) *program {
	for ; s != nil; s = s.parent {
		if p, ok := s.parts[name]; ok {
			return p
		}
	}
	return nil
}

func (s *partialScope) with(parts map[string]*program) *partialScope {
	if len(parts) == 0 {
		return s
	}
	return &partialScope{parts: parts, parent: s}
}

// boundBlock is a partial block's body with the scope it was written in,
// for {{> @partial-block}}.
type boundBlock struct {
	prog  *program
	frame *frame
	outer *boundBlock
}

func runtimeErr(format string, args ...any) error {
	return &render.RenderError{Reason: fmt.Sprintf(format, args...)}
}

func (r *renderer) write(s string) error {
	if r.out.Len()+len(s) > r.maxOut {
		return errOutput
	}
	r.out.WriteString(s)
	return nil
}

func (r *renderer) writeEscaped(s string) error {
	if r.noEscape {
		return r.write(s)
	}
	if r.out.Len()+len(s) > r.maxOut {
		return errOutput
	}
	escapeHTML(r.out, s)
	if r.out.Len() > r.maxOut {
		return errOutput
	}
	return nil
}

func (r *renderer) tick() error {
	r.steps++
	if r.steps%checkEvery != 0 {
		return nil
	}
	if time.Now().After(r.deadline) {
		return errTime
	}
	if r.ctx.Err() != nil {
		return errTime
	}
	return nil
}

// run executes prog with a new context, data and block parameters.
func (r *renderer) run(prog *program, parent *frame, ctx any, data *dataFrame, blockValues []any) error {
	if prog == nil {
		return nil
	}
	f := &frame{ctx: ctx, depths: parent.depths, data: data, params: parent.params, partials: parent.partials.with(prog.inlines)}
	if len(parent.depths) == 0 || !sameValue(ctx, parent.depths[0]) {
		f.depths = append([]any{ctx}, parent.depths...)
	}
	if len(prog.blockParams) > 0 {
		f.params = &paramScope{names: prog.blockParams, values: blockValues, parent: parent.params}
	}
	return r.body(prog.body, f)
}

func (r *renderer) body(body []node, f *frame) error {
	r.nesting++
	defer func() { r.nesting-- }()
	if r.nesting > maxNesting {
		return runtimeErr("templates nested more than %d levels deep (a partial that includes itself?)", maxNesting)
	}
	for _, n := range body {
		if err := r.tick(); err != nil {
			return err
		}
		var err error
		switch s := n.(type) {
		case *content:
			err = r.write(s.value)
		case *mustache:
			err = r.mustache(s, f)
		case *block:
			err = r.block(s, f)
		case *partial:
			err = r.partial(s, f)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *renderer) mustache(m *mustache, f *frame) error {
	v, err := r.call(&m.call, f)
	if err != nil {
		return err
	}
	if m.escaped {
		return r.writeEscaped(toString(v))
	}
	return r.write(toString(v))
}

// simpleName returns the name of a path that may name a helper: one
// segment, no @, no ../, no this.
func simpleName(e expr) (string, bool) {
	p, ok := e.(*pathExpr)
	if !ok || p.data || p.scoped || len(p.parts) != 1 {
		return "", false
	}
	return p.parts[0], true
}

// call evaluates a mustache or subexpression: a helper call or a lookup.
func (r *renderer) call(c *call, f *frame) (any, error) {
	if name, ok := simpleName(c.path); ok && isHelper(name) {
		if _, isParam := f.params.lookup(name); !isParam {
			args, hash, err := r.args(c, f)
			if err != nil {
				return nil, err
			}
			return r.valueHelper(name, args, hash)
		}
	}
	if len(c.params) > 0 || len(c.hash) > 0 {
		return nil, runtimeErr("Missing helper: %q", exprName(c.path))
	}
	if l, ok := c.path.(*literal); ok {
		// {{"name"}} and {{1}} look the literal up as a property name.
		return property(f.ctx, toString(l.value)), nil
	}
	return r.eval(c.path, f)
}

func (r *renderer) args(c *call, f *frame) ([]any, map[string]any, error) {
	args := make([]any, len(c.params))
	for i, p := range c.params {
		v, err := r.eval(p, f)
		if err != nil {
			return nil, nil, err
		}
		args[i] = v
	}
	var hash map[string]any
	if len(c.hash) > 0 {
		hash = make(map[string]any, len(c.hash))
		for _, h := range c.hash {
			v, err := r.eval(h.value, f)
			if err != nil {
				return nil, nil, err
			}
			hash[h.key] = v
		}
	}
	return args, hash, nil
}

func (r *renderer) eval(e expr, f *frame) (any, error) {
	switch v := e.(type) {
	case *literal:
		return v.value, nil
	case *subExpr:
		return r.call(&v.call, f)
	case *pathExpr:
		return resolve(v, f), nil
	}
	return nil, nil
}

func resolve(p *pathExpr, f *frame) any {
	var v any
	parts := p.parts
	switch {
	case p.data:
		d := f.data
		for i := 0; i < p.depth && d != nil; i++ {
			d = d.parent
		}
		if d == nil {
			return nil
		}
		v, parts = d.get(parts[0]), parts[1:]
	case !p.scoped && len(parts) > 0:
		if pv, ok := f.params.lookup(parts[0]); ok {
			v, parts = pv, parts[1:]
			break
		}
		v = f.ctx
	case p.depth == 0:
		v = f.ctx
	case p.depth < len(f.depths):
		v = f.depths[p.depth]
	default:
		return nil
	}
	for _, part := range parts {
		if v == nil {
			return nil
		}
		v = property(v, part)
	}
	return v
}

func (r *renderer) block(b *block, f *frame) error {
	switch b.kind {
	case blockInline:
		return nil // registered when its program starts
	case blockPartial:
		return r.partialBlock(b, f)
	}
	name, simple := simpleName(b.call.path)
	if simple && isHelper(name) {
		if _, isParam := f.params.lookup(name); !isParam {
			args, hash, err := r.args(&b.call, f)
			if err != nil {
				return err
			}
			return r.blockHelper(name, args, hash, b, f)
		}
	}
	if b.raw {
		// Without a helper of its name, a raw block prints its body.
		return r.write(b.program.body[0].(*content).value)
	}
	if len(b.call.params) > 0 || len(b.call.hash) > 0 {
		return runtimeErr("Missing helper: %q", exprName(b.call.path))
	}
	v, err := r.eval(b.call.path, f)
	if err != nil {
		return err
	}
	return r.blockHelperMissing(v, b, f)
}

// blockHelperMissing is what {{#name}} does when name is a value, not a
// helper: a section as in Mustache.
func (r *renderer) blockHelperMissing(v any, b *block, f *frame) error {
	switch x := v.(type) {
	case bool:
		if x {
			return r.run(b.program, f, f.ctx, f.data, nil)
		}
		return r.run(b.inverse, f, f.ctx, f.data, nil)
	case nil, undefinedValue:
		return r.run(b.inverse, f, f.ctx, f.data, nil)
	}
	if arr, ok := asArray(v); ok {
		if len(arr) > 0 {
			return r.each(v, b, f)
		}
		return r.run(b.inverse, f, f.ctx, f.data, nil)
	}
	return r.run(b.program, f, v, f.data, nil)
}

func (r *renderer) partialName(e expr, f *frame) (string, error) {
	switch v := e.(type) {
	case *pathExpr:
		return v.original, nil
	case *literal:
		return toString(v.value), nil
	case *subExpr:
		n, err := r.call(&v.call, f)
		return toString(n), err
	}
	return "", nil
}

// partialContext is the context a partial runs with: its argument or the
// current context, extended by its hash.
func (r *renderer) partialContext(params []expr, hash []hashPair, f *frame) (any, error) {
	ctx := f.ctx
	if len(params) > 0 {
		v, err := r.eval(params[0], f)
		if err != nil {
			return nil, err
		}
		ctx = v
	}
	if len(hash) == 0 {
		return ctx, nil
	}
	// Object.assign({}, context, hash), member order kept.
	merged := &object{values: map[string]any{}}
	if keys, get, ok := asObject(ctx); ok {
		for _, k := range keys {
			merged.set(k, get(k))
		}
	}
	for _, h := range hash {
		v, err := r.eval(h.value, f)
		if err != nil {
			return nil, err
		}
		merged.set(h.key, v)
	}
	return merged, nil
}

func (r *renderer) partial(p *partial, f *frame) error {
	name, err := r.partialName(p.name, f)
	if err != nil {
		return err
	}
	ctx, err := r.partialContext(p.params, p.hash, f)
	if err != nil {
		return err
	}
	if p.indent == "" {
		return r.invokePartial(name, ctx, f)
	}
	// A standalone partial indents every line of its output.
	saved := r.out
	var buf strings.Builder
	r.out = &buf
	err = r.invokePartial(name, ctx, f)
	r.out = saved
	if err != nil {
		return err
	}
	lines := strings.Split(buf.String(), "\n")
	for i, l := range lines {
		if l == "" && i+1 == len(lines) {
			break
		}
		lines[i] = p.indent + l
	}
	return r.write(strings.Join(lines, "\n"))
}

func (r *renderer) invokePartial(name string, ctx any, f *frame) error {
	if name == "@partial-block" {
		bb := f.data.partialBlock
		if bb == nil {
			return runtimeErr("The partial %s could not be found", name)
		}
		data := f.data.child()
		data.partialBlock = bb.outer
		return r.run(bb.prog, bb.frame, ctx, data, nil)
	}
	prog := f.partials.lookup(name)
	if prog == nil {
		return runtimeErr("The partial %s could not be found", name)
	}
	// A partial starts with no block parameters and, as in handlebars.js
	// 4.7, no parent contexts: ../ inside it names nothing.
	pf := &frame{ctx: f.ctx, data: f.data, partials: f.partials}
	return r.run(prog, pf, ctx, f.data, nil)
}

// partialBlock runs {{#> name}}body{{/name}}: the partial with the body as
// @partial-block, or the body when there is no such partial.
func (r *renderer) partialBlock(b *block, f *frame) error {
	name, err := r.partialName(b.call.path, f)
	if err != nil {
		return err
	}
	ctx, err := r.partialContext(b.call.params, b.call.hash, f)
	if err != nil {
		return err
	}
	// handlebars.js 4.7 does not show the block's inline partials to the
	// partial it calls; neither do we.
	scope := f.partials
	bound := &boundBlock{prog: b.program, frame: f, outer: f.data.partialBlock}
	prog := scope.lookup(name)
	if prog == nil {
		data := f.data.child()
		data.partialBlock = bound.outer
		return r.run(b.program, f, ctx, data, nil)
	}
	data := f.data.child()
	data.partialBlock = bound
	pf := &frame{ctx: f.ctx, data: data, partials: scope}
	return r.run(prog, pf, ctx, data, nil)
}
