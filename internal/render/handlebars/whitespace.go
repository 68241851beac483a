package handlebars

import (
	"regexp"
	"strings"
)

// The whitespace rules of handlebars.js (its WhitespaceControl visitor):
// ~ strips whitespace on its side, and a block tag, {{else}}, a comment or
// a partial alone on its line takes the line's indentation and newline
// with it ("standalone").

// stripInfo is what a statement asks of its neighbours.
type stripInfo struct {
	open, close                                       bool
	openStandalone, closeStandalone, inlineStandalone bool
}

var (
	prevNewline        = regexp.MustCompile(`\r?\n\s*?$`)
	prevNewlineOrStart = regexp.MustCompile(`(^|\r?\n)\s*?$`)
	nextNewline        = regexp.MustCompile(`^\s*?\r?\n`)
	nextNewlineOrEnd   = regexp.MustCompile(`^\s*?(\r?\n|$)`)
	leadingLine        = regexp.MustCompile(`^[ \t]*\r?\n?`)
	trailingIndent     = regexp.MustCompile(`[ \t]+$`)
	finalIndent        = regexp.MustCompile(`([ \t]+$)`)
)

// isPrevWhitespace reports whether the content before body[i] ends a line
// with only whitespace; i == len(body) looks at the end of the body.
func isPrevWhitespace(body []node, i int, isRoot bool) bool {
	if i-1 < 0 {
		return isRoot
	}
	prev, ok := body[i-1].(*content)
	if !ok {
		return false
	}
	if i-2 >= 0 || !isRoot {
		return prevNewline.MatchString(prev.original)
	}
	return prevNewlineOrStart.MatchString(prev.original)
}

// isNextWhitespace is isPrevWhitespace's mirror; i == -1 looks at the
// start of the body.
func isNextWhitespace(body []node, i int, isRoot bool) bool {
	if i+1 >= len(body) {
		return isRoot
	}
	next, ok := body[i+1].(*content)
	if !ok {
		return false
	}
	if i+2 < len(body) || !isRoot {
		return nextNewline.MatchString(next.original)
	}
	return nextNewlineOrEnd.MatchString(next.original)
}

// omitRight strips the start of the content after body[i] (i == -1: the
// first statement): all whitespace when multiple (~), else the rest of the
// line.
func omitRight(body []node, i int, multiple bool) {
	if i+1 >= len(body) {
		return
	}
	c, ok := body[i+1].(*content)
	if !ok || (!multiple && c.rightStripped) {
		return
	}
	before := c.value
	if multiple {
		c.value = strings.TrimLeft(c.value, " \t\r\n\f\v")
	} else {
		c.value = leadingLine.ReplaceAllString(c.value, "")
	}
	c.rightStripped = c.value != before
}

// omitLeft strips the end of the content before body[i] (i == len(body):
// the last statement) and reports whether it removed anything.
func omitLeft(body []node, i int, multiple bool) bool {
	if i-1 < 0 || i-1 >= len(body) {
		return false
	}
	c, ok := body[i-1].(*content)
	if !ok || (!multiple && c.leftStripped) {
		return false
	}
	before := c.value
	if multiple {
		c.value = strings.TrimRight(c.value, " \t\r\n\f\v")
	} else {
		c.value = trailingIndent.ReplaceAllString(c.value, "")
	}
	c.leftStripped = c.value != before
	return c.leftStripped
}

func whitespaceControl(prog *program, isRoot bool) {
	body := prog.body
	for i, n := range body {
		s := accept(n)
		if s == nil {
			continue
		}
		prevWS, nextWS := isPrevWhitespace(body, i, isRoot), isNextWhitespace(body, i, isRoot)
		openStandalone := s.openStandalone && prevWS
		closeStandalone := s.closeStandalone && nextWS
		inlineStandalone := s.inlineStandalone && prevWS && nextWS
		if s.close {
			omitRight(body, i, true)
		}
		if s.open {
			omitLeft(body, i, true)
		}
		if inlineStandalone {
			omitRight(body, i, false)
			if omitLeft(body, i, false) {
				if p, ok := n.(*partial); ok {
					if m := finalIndent.FindStringSubmatch(body[i-1].(*content).original); m != nil {
						p.indent = m[1]
					}
				}
			}
		}
		if openStandalone {
			b := n.(*block)
			inner := b.program
			if inner == nil {
				inner = b.inverse
			}
			omitRight(inner.body, -1, false)
			omitLeft(body, i, false)
		}
		if closeStandalone {
			b := n.(*block)
			omitRight(body, i, false)
			inner := b.inverse
			if inner == nil {
				inner = b.program
			}
			omitLeft(inner.body, len(inner.body), false)
		}
	}
}

func accept(n node) *stripInfo {
	switch v := n.(type) {
	case *mustache:
		return &stripInfo{open: v.strip.open, close: v.strip.close}
	case *partial:
		return &stripInfo{inlineStandalone: true, open: v.strip.open, close: v.strip.close}
	case *comment:
		return &stripInfo{inlineStandalone: true, open: v.strip.open, close: v.strip.close}
	case *block:
		return blockWhitespace(v)
	}
	return nil
}

func blockWhitespace(b *block) *stripInfo {
	if b.program != nil {
		whitespaceControl(b.program, false)
	}
	if b.inverse != nil {
		whitespaceControl(b.inverse, false)
	}
	prog := b.program
	if prog == nil {
		prog = b.inverse
	}
	var inverse *program
	if b.program != nil {
		inverse = b.inverse
	}
	firstInverse, lastInverse := inverse, inverse
	if inverse != nil && inverse.chained {
		firstInverse = inverse.body[0].(*block).program
		// As handlebars.js walks it: the last link's own body.
		for lastInverse.chained {
			lastInverse = lastInverse.body[len(lastInverse.body)-1].(*block).program
		}
	}
	closeTarget := prog
	if firstInverse != nil {
		closeTarget = firstInverse
	}
	s := &stripInfo{
		open:            b.openStrip.open,
		close:           b.closeStrip.close,
		openStandalone:  isNextWhitespace(prog.body, -1, false),
		closeStandalone: isPrevWhitespace(closeTarget.body, len(closeTarget.body), false),
	}
	if b.openStrip.close {
		omitRight(prog.body, -1, true)
	}
	if inverse != nil {
		if b.inverseStrip.open {
			omitLeft(prog.body, len(prog.body), true)
		}
		if b.inverseStrip.close {
			omitRight(firstInverse.body, -1, true)
		}
		if b.closeStrip.open {
			omitLeft(lastInverse.body, len(lastInverse.body), true)
		}
		if isPrevWhitespace(prog.body, len(prog.body), false) && isNextWhitespace(firstInverse.body, -1, false) {
			omitLeft(prog.body, len(prog.body), false)
			omitRight(firstInverse.body, -1, false)
		}
	} else if b.closeStrip.open {
		omitLeft(prog.body, len(prog.body), true)
	}
	return s
}
