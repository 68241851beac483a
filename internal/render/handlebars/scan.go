package handlebars

import (
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

// scanner splits a template into text and tags.
type scanner struct {
	src    string
	off    int
	tokens []token
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

func (s *scanner) posAt(off int) pos {
	l, c := lineCol(s.src, off)
	return pos{l, c}
}

func (s *scanner) text(t string) {
	if t == "" {
		return
	}
	if n := len(s.tokens); n > 0 && s.tokens[n-1].kind == tagText {
		s.tokens[n-1].text += t
		return
	}
	s.tokens = append(s.tokens, token{kind: tagText, text: t})
}

func scan(src string) ([]token, error) {
	s := &scanner{src: src}
	for s.off < len(src) {
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
	s.tokens = append(s.tokens, t)
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
		body := i + 3
		plain := strings.Index(src[body:], "--}}")
		tilde := strings.Index(src[body:], "--~}}")
		switch {
		case plain < 0 && tilde < 0:
			return syntaxErr(src, start, "unclosed comment: expected --}}")
		case tilde >= 0 && (plain < 0 || tilde < plain):
			t.strip.close = true
			s.off = body + tilde + 5
		default:
			s.off = body + plain + 4
		}
		s.tokens = append(s.tokens, t)
		return nil
	}
	k := strings.Index(src[i:], "}}")
	if k < 0 {
		return syntaxErr(src, start, "unclosed comment: expected }}")
	}
	if k > 0 && src[i+k-1] == '~' {
		t.strip.close = true
	}
	s.tokens = append(s.tokens, t)
	s.off = i + k + 2
	return nil
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
	s.tokens = append(s.tokens, token{kind: tagRawBlock, text: inner, raw: src[bodyStart : bodyStart+e], pos: s.posAt(start)})
	s.off = bodyStart + e + len(closeTag)
	return nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }
