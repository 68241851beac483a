package handlebars

import (
	"context"
	"strings"

	"github.com/carteiro/carteiro/internal/render"
)

// tagKind is what a {{...}} tag is, from its opening characters.
type tagKind int

const (
	tagText tagKind = iota
	tagMustache
	tagUnescaped   // {{{x}}} and {{&x}}
	tagOpen        // {{#x}}
	tagOpenInverse // {{^x}}
	tagElse        // {{else}} and {{^}}
	tagElseChain   // {{else x}}
	tagClose       // {{/x}}
	tagPartial     // {{>x}}
	tagOpenPartial // {{#>x}}
	tagOpenInline  // {{#*inline "x"}}
	tagComment     // {{!x}} and {{!--x--}}
	tagRawBlock    // {{{{x}}}}...{{{{/x}}}}
)

// token is one piece of the template: text, or a tag with its inner
// expression source.
type token struct {
	kind  tagKind
	text  string // text, or the tag's expression
	raw   string // a raw block's content
	strip strip
	pos   pos
}

// scanner splits a template into text and tags in one pass: every search
// starts where the previous one ended, so scanning is linear in the source
// (D61).
type scanner struct {
	src    string
	off    int
	tokens []token
	// pending is text not yet emitted as a token: the text between two
	// tags can come in pieces (around an escaped \{{).
	pending strings.Builder
	// at is the position of offset atOff; tags come in source order, so
	// each tag's position is counted on from the previous one's.
	at    pos
	atOff int
	// ctx ends a scan that runs past the render's deadline.
	ctx context.Context
}

func syntaxErr(src string, off int, reason string) error {
	line, col := lineCol(src, off)
	return &render.SyntaxError{Line: line, Column: col, Reason: reason}
}

// lineCol turns a byte offset into a 1-based line and column (in runes).
func lineCol(src string, off int) (int, int) {
	if off > len(src) {
		off = len(src)
	}
	before := src[:off]
	line := strings.Count(before, "\n") + 1
	col := len([]rune(before[strings.LastIndexByte(before, '\n')+1:])) + 1
	return line, col
}

// posAt is the line and column of off, counted on from the last position
// asked for (lineCol from the start for every tag made scanning quadratic).
func (s *scanner) posAt(off int) pos {
	if off < s.atOff {
		l, c := lineCol(s.src, off)
		return pos{l, c}
	}
	p := s.at
	for i := s.atOff; i < off; i++ {
		switch c := s.src[i]; {
		case c == '\n':
			p.line, p.column = p.line+1, 1
		case c&0xC0 != 0x80: // the first byte of a rune
			p.column++
		}
	}
	s.at, s.atOff = p, off
	return p
}

func (s *scanner) text(t string) { s.pending.WriteString(t) }

// emit appends a tag's token after the text before it.
func (s *scanner) emit(t token) {
	s.flushText()
	s.tokens = append(s.tokens, t)
}

func (s *scanner) flushText() {
	if s.pending.Len() > 0 {
		s.tokens = append(s.tokens, token{kind: tagText, text: s.pending.String()})
		s.pending.Reset()
	}
}

// checkDeadlineEvery is how many tags are scanned between two looks at
// the deadline.
const checkDeadlineEvery = 1024

func scan(ctx context.Context, src string) ([]token, error) {
	s := &scanner{src: src, at: pos{1, 1}, ctx: ctx}
	for n := 1; s.off < len(src); n++ {
		if n%checkDeadlineEvery == 0 && ctx.Err() != nil {
			return nil, errTime
		}
		i := strings.Index(src[s.off:], "{{")
		if i < 0 {
			s.text(src[s.off:])
			break
		}
		start := s.off + i
		// \{{ is an escaped mustache: text up to the next {{. \\{{ is a
		// literal backslash before a real mustache.
		if start > s.off && src[start-1] == '\\' {
			if start-1 > s.off && src[start-2] == '\\' {
				s.text(src[s.off : start-1])
			} else {
				s.text(src[s.off : start-1])
				next := strings.Index(src[start+2:], "{{")
				end := len(src)
				if next >= 0 {
					end = start + 2 + next
				}
				s.text(src[start:end])
				s.off = end
				continue
			}
		} else {
			s.text(src[s.off:start])
		}
		if err := s.tag(start); err != nil {
			return nil, err
		}
	}
	s.flushText()
	return s.tokens, nil
}

// tag reads one tag starting at {{.
func (s *scanner) tag(start int) error {
	src := s.src
	p := s.posAt(start)
	if strings.HasPrefix(src[start:], "{{{{") {
		return s.rawBlock(start)
	}
	i := start + 2
	var t token
	t.pos = p
	// {{{ and {{~{ open an unescaped mustache.
	triple := false
	if i < len(src) && src[i] == '{' {
		triple = true
		i++
	}
	if i < len(src) && src[i] == '~' {
		t.strip.open = true
		i++
	}
	if !triple && i < len(src) && src[i] == '{' {
		triple = true
		i++
	}
	if !triple && strings.HasPrefix(src[i:], "!") {
		return s.comment(start, i, t)
	}
	closer := "}}"
	if triple {
		closer = "}}}"
		t.kind = tagUnescaped
	} else {
		t.kind = tagMustache
		switch {
		case strings.HasPrefix(src[i:], "#>"):
			t.kind, i = tagOpenPartial, i+2
		case strings.HasPrefix(src[i:], "#*"):
			t.kind, i = tagOpenInline, i+2
		case strings.HasPrefix(src[i:], "#"):
			t.kind, i = tagOpen, i+1
		case strings.HasPrefix(src[i:], "^"):
			t.kind, i = tagOpenInverse, i+1
		case strings.HasPrefix(src[i:], "/"):
			t.kind, i = tagClose, i+1
		case strings.HasPrefix(src[i:], ">"):
			t.kind, i = tagPartial, i+1
		case strings.HasPrefix(src[i:], "&"):
			t.kind, i = tagUnescaped, i+1
		case strings.HasPrefix(src[i:], "*"):
			return syntaxErr(src, start, "decorators are not supported")
		}
	}
	end, exprEnd, err := s.findClose(i, closer, start)
	if err != nil {
		return err
	}
	inner := src[i:exprEnd]
	if strings.HasPrefix(src[exprEnd:], "}~}}") {
		t.strip.close = true
	}
	if strings.HasSuffix(inner, "~") {
		t.strip.close = true
		inner = inner[:len(inner)-1]
	}
	trimmed := strings.TrimSpace(inner)
	switch t.kind {
	case tagOpenInverse:
		if trimmed == "" {
			t.kind = tagElse
		}
	case tagMustache:
		if trimmed == "else" {
			t.kind = tagElse
		} else if strings.HasPrefix(trimmed, "else") && len(trimmed) > 4 && isSpace(trimmed[4]) {
			t.kind = tagElseChain
			trimmed = strings.TrimSpace(trimmed[4:])
		}
	}
	t.text = trimmed
	s.emit(t)
	s.off = end
	return nil
}

// findClose finds the closer of a tag, skipping string literals; it
// returns the offset after the closer and where the expression ends.
func (s *scanner) findClose(i int, closer string, start int) (end, exprEnd int, err error) {
	src := s.src
	for j := i; j < len(src); j++ {
		switch c := src[j]; c {
		case '"', '\'':
			k := strings.IndexByte(src[j+1:], c)
			if k < 0 {
				return 0, 0, syntaxErr(src, j, "unterminated string")
			}
			j += k + 1
		case '[':
			k := strings.IndexByte(src[j+1:], ']')
			if k < 0 {
				return 0, 0, syntaxErr(src, j, "unterminated [ segment")
			}
			j += k + 1
		case '}':
			if strings.HasPrefix(src[j:], closer) {
				return j + len(closer), j, nil
			}
			if closer == "}}}" && strings.HasPrefix(src[j:], "}~}}") {
				// }~}} closes an unescaped mustache with a strip; report
				// the ~ as part of the expression, like ~}}.
				return j + 4, j, nil
			}
			if closer == "}}}" && strings.HasPrefix(src[j:], "}}") {
				return 0, 0, syntaxErr(src, j, "expected }}} to close {{{")
			}
			if closer == "}}" && strings.HasPrefix(src[j:], "}}") {
				return j + 2, j, nil
			}
		}
	}
	return 0, 0, syntaxErr(src, start, "unclosed tag: expected "+closer)
}

func (s *scanner) comment(start, i int, t token) error {
	src := s.src
	t.kind = tagComment
	if strings.HasPrefix(src[i:], "!--") {
		end, tilde := commentEnd(src, i+3)
		if end < 0 {
			return syntaxErr(src, start, "unclosed comment: expected --}}")
		}
		t.strip.close = tilde
		s.off = end
		s.emit(t)
		return nil
	}
	k := strings.Index(src[i:], "}}")
	if k < 0 {
		return syntaxErr(src, start, "unclosed comment: expected }}")
	}
	if k > 0 && src[i+k-1] == '~' {
		t.strip.close = true
	}
	s.emit(t)
	s.off = i + k + 2
	return nil
}

// commentEnd finds the first --}} or --~}} from body, in one pass (two
// searches from the same place would each run to the end of the source
// when one closer is absent, for every comment). It returns the offset
// after the closer and whether it was --~}}, or -1.
func commentEnd(src string, body int) (end int, tilde bool) {
	for from := body; ; {
		k := strings.Index(src[from:], "--")
		if k < 0 {
			return -1, false
		}
		at := from + k
		switch {
		case strings.HasPrefix(src[at:], "--}}"):
			return at + 4, false
		case strings.HasPrefix(src[at:], "--~}}"):
			return at + 5, true
		}
		from = at + 1
	}
}

// rawBlock reads {{{{name args}}}}content{{{{/name}}}}; content is not
// parsed.
func (s *scanner) rawBlock(start int) error {
	src := s.src
	k := strings.Index(src[start+4:], "}}}}")
	if k < 0 {
		return syntaxErr(src, start, "unclosed raw block tag: expected }}}}")
	}
	inner := strings.TrimSpace(src[start+4 : start+4+k])
	name := inner
	if sp := strings.IndexAny(inner, " \t\r\n"); sp >= 0 {
		name = inner[:sp]
	}
	bodyStart := start + 4 + k + 4
	closeTag := "{{{{/" + name + "}}}}"
	e := strings.Index(src[bodyStart:], closeTag)
	if e < 0 {
		return syntaxErr(src, start, "unclosed raw block: expected "+closeTag)
	}
	s.emit(token{kind: tagRawBlock, text: inner, raw: src[bodyStart : bodyStart+e], pos: s.posAt(start)})
	s.off = bodyStart + e + len(closeTag)
	return nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }
