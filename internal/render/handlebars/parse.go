package handlebars

import (
	"context"
	"fmt"

	"github.com/carteiro/carteiro/internal/render"
)

// parser builds the syntax tree from the scanner's tokens.
type parser struct {
	tokens []token
	i      int
	// depth counts the blocks being read, bounded by maxNesting so that a
	// source cannot make the parser recurse without bound (D61).
	depth int
	ctx   context.Context
}

func parse(ctx context.Context, src string) (*program, error) {
	tokens, err := scan(ctx, src)
	if err != nil {
		return nil, err
	}
	p := &parser{tokens: tokens, ctx: ctx}
	prog, stop, err := p.program()
	if err != nil {
		return nil, err
	}
	if stop != nil {
		return nil, errAt(stop.pos, fmt.Sprintf("unexpected {{%s}}", tagName(stop)))
	}
	whitespaceControl(prog, true)
	return prog, nil
}

func errAt(p pos, reason string) error {
	return &render.SyntaxError{Line: p.line, Column: p.column, Reason: reason}
}

func tagName(t *token) string {
	switch t.kind {
	case tagElse:
		return "else"
	case tagElseChain:
		return "else " + t.text
	case tagClose:
		return "/" + t.text
	}
	return t.text
}

// program reads statements until the end or a tag that ends a block body
// ({{else}}, {{else x}}, {{/x}}), which it returns unconsumed.
func (p *parser) program() (*program, *token, error) {
	prog := &program{}
	for p.i < len(p.tokens) {
		if p.i%checkDeadlineEvery == 0 && p.ctx.Err() != nil {
			return nil, nil, errTime
		}
		t := &p.tokens[p.i]
		switch t.kind {
		case tagElse, tagElseChain, tagClose:
			return prog, t, nil
		}
		p.i++
		n, err := p.statement(t)
		if err != nil {
			return nil, nil, err
		}
		if b, ok := n.(*block); ok && b.kind == blockInline {
			if prog.inlines == nil {
				prog.inlines = map[string]*program{}
			}
			name, _ := b.call.params[0].(*literal).value.(string)
			prog.inlines[name] = b.program
		}
		prog.body = append(prog.body, n)
	}
	return prog, nil, nil
}

func (p *parser) statement(t *token) (node, error) {
	ep := &exprParser{s: t.text, pos: t.pos}
	switch t.kind {
	case tagText:
		return &content{original: t.text, value: t.text}, nil
	case tagComment:
		return &comment{strip: t.strip}, nil
	case tagMustache, tagUnescaped:
		c, _, err := ep.parseCall(false)
		if err != nil {
			return nil, err
		}
		return &mustache{call: c, escaped: t.kind == tagMustache, strip: t.strip, pos: t.pos}, nil
	case tagPartial:
		c, _, err := ep.parseCall(false)
		if err != nil {
			return nil, err
		}
		if len(c.params) > 1 {
			return nil, errAt(t.pos, "a partial takes at most one context argument")
		}
		return &partial{name: c.path, params: c.params, hash: c.hash, strip: t.strip, pos: t.pos}, nil
	case tagRawBlock:
		c, _, err := ep.parseCall(false)
		if err != nil {
			return nil, err
		}
		body := &program{body: []node{&content{original: t.raw, value: t.raw}}}
		return &block{kind: blockHelper, raw: true, call: c, program: body, pos: t.pos}, nil
	case tagOpen, tagOpenInverse, tagOpenPartial, tagOpenInline:
		return p.block(t, ep)
	}
	return nil, errAt(t.pos, "unexpected tag")
}

// block reads a block from its opening tag to its closing tag.
func (p *parser) block(open *token, ep *exprParser) (node, error) {
	if p.depth >= maxNesting {
		return nil, errAt(open.pos, fmt.Sprintf("blocks nested more than %d levels deep", maxNesting))
	}
	p.depth++
	defer func() { p.depth-- }()
	c, blockParams, err := ep.parseCall(open.kind == tagOpen || open.kind == tagOpenInverse)
	if err != nil {
		return nil, err
	}
	b := &block{kind: blockHelper, call: c, openStrip: open.strip, pos: open.pos}
	switch open.kind {
	case tagOpenPartial:
		b.kind = blockPartial
	case tagOpenInline:
		b.kind = blockInline
		name, ok := c.path.(*pathExpr)
		if !ok || name.original != "inline" || len(c.params) != 1 {
			return nil, errAt(open.pos, `only {{#*inline "name"}} decorators are supported`)
		}
		if l, ok := c.params[0].(*literal); !ok {
			return nil, errAt(open.pos, "an inline partial's name must be a string")
		} else if _, ok := l.value.(string); !ok {
			return nil, errAt(open.pos, "an inline partial's name must be a string")
		}
	}
	body, stop, err := p.program()
	if err != nil {
		return nil, err
	}
	body.blockParams = blockParams
	if stop == nil {
		return nil, errAt(open.pos, fmt.Sprintf("unclosed block {{#%s}}", exprName(c.path)))
	}
	var inverse *program
	switch stop.kind {
	case tagElse:
		p.i++
		b.inverseStrip = stop.strip
		inv, close, err := p.program()
		if err != nil {
			return nil, err
		}
		if close == nil || close.kind != tagClose {
			return nil, errAt(open.pos, fmt.Sprintf("unclosed block {{#%s}}", exprName(c.path)))
		}
		inverse, stop = inv, close
		p.i++
	case tagElseChain:
		p.i++
		b.inverseStrip = stop.strip
		link := *stop
		link.kind = tagOpen
		n, err := p.chainedBlock(&link, &exprParser{s: link.text, pos: link.pos})
		if err != nil {
			return nil, err
		}
		inverse = &program{body: []node{n}, chained: true}
		// chainedBlock consumed the closing tag the chain shares.
		stop = &p.tokens[p.i-1]
	default:
		p.i++
	}
	if stop.kind != tagClose {
		return nil, errAt(stop.pos, "expected a closing tag")
	}
	closeName := stop.text
	if want := exprName(c.path); closeName != want {
		return nil, errAt(stop.pos, fmt.Sprintf("%s doesn't match %s", want, closeName))
	}
	b.closeStrip = stop.strip
	if inverse != nil && inverse.chained {
		setChainCloseStrip(inverse, stop.strip)
	}
	if open.kind == tagOpenInverse {
		if inverse != nil {
			return nil, errAt(open.pos, "an inverted block {{^x}} cannot have {{else}}")
		}
		b.program, b.inverse = nil, body
	} else {
		b.program, b.inverse = body, inverse
	}
	return b, nil
}

// chainedBlock reads the {{else x}} link of a chain: its body, then its
// own {{else}} or next link, up to but not including the shared close.
func (p *parser) chainedBlock(open *token, ep *exprParser) (node, error) {
	c, blockParams, err := ep.parseCall(true)
	if err != nil {
		return nil, err
	}
	b := &block{kind: blockHelper, call: c, openStrip: open.strip, pos: open.pos}
	body, stop, err := p.program()
	if err != nil {
		return nil, err
	}
	body.blockParams = blockParams
	if stop == nil {
		return nil, errAt(open.pos, "unclosed {{else "+exprName(c.path)+"}}")
	}
	b.program = body
	switch stop.kind {
	case tagElse:
		p.i++
		b.inverseStrip = stop.strip
		inv, close, err := p.program()
		if err != nil {
			return nil, err
		}
		if close == nil || close.kind != tagClose {
			return nil, errAt(open.pos, "unclosed {{else "+exprName(c.path)+"}}")
		}
		b.inverse = inv
		p.i++ // the shared close
	case tagElseChain:
		p.i++
		b.inverseStrip = stop.strip
		next := *stop
		next.kind = tagOpen
		n, err := p.chainedBlock(&next, &exprParser{s: next.text, pos: next.pos})
		if err != nil {
			return nil, err
		}
		b.inverse = &program{body: []node{n}, chained: true}
	case tagClose:
		p.i++ // the shared close
	}
	return b, nil
}

func setChainCloseStrip(inv *program, s strip) {
	for inv != nil && inv.chained {
		b := inv.body[0].(*block)
		b.closeStrip = s
		inv = b.inverse
	}
}

// exprName is the name a closing tag must repeat.
func exprName(e expr) string {
	switch v := e.(type) {
	case *pathExpr:
		return v.original
	case *literal:
		return fmt.Sprint(v.value)
	}
	return ""
}
