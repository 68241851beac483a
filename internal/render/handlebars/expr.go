package handlebars

import (
	"strconv"
	"strings"

	"github.com/carteiro/carteiro/internal/render"
)

// exprParser parses the inside of a tag: a helper or path, its
// positional arguments, its hash arguments and block parameters.
type exprParser struct {
	s   string
	i   int
	pos pos
	// nesting counts the subexpressions being read, bounded by
	// maxSubexprNesting so that a source cannot make the parser (or the
	// evaluator) recurse without bound.
	nesting int
}

// maxSubexprNesting bounds (sub (sub (...))) nesting: far more than any
// template needs, and as deep as the evaluator nests programs (D61).
const maxSubexprNesting = maxNesting

func (p *exprParser) fail(reason string) error {
	return &render.SyntaxError{Line: p.pos.line, Column: p.pos.column, Reason: reason}
}

func (p *exprParser) skipSpace() {
	for p.i < len(p.s) && isSpace(p.s[p.i]) {
		p.i++
	}
}

func (p *exprParser) done() bool {
	p.skipSpace()
	return p.i >= len(p.s)
}

// isIDChar reports whether c may appear in a Handlebars identifier.
func isIDChar(c byte) bool {
	if isSpace(c) {
		return false
	}
	return !strings.ContainsRune("!\"#%&'()*+,./;<=>@[\\]^`{|}~", rune(c))
}

// parseCall reads `path params... hash... [as |a b|]`.
func (p *exprParser) parseCall(allowBlockParams bool) (call, []string, error) {
	return p.parseCallTo(allowBlockParams, false)
}

// parseCallTo reads a call; in a subexpression (inParen) it ends at the
// closing ) and consumes it. Reading up to the ) in the same pass, rather
// than finding the matching ) first and parsing again, keeps parsing
// linear in the source: nested (lookup (lookup ...)) used to be rescanned
// once per level (D61).
func (p *exprParser) parseCallTo(allowBlockParams, inParen bool) (call, []string, error) {
	var c call
	head, err := p.parseExpr()
	if err != nil {
		return c, nil, err
	}
	if head == nil {
		return c, nil, p.fail("expected a name")
	}
	c.path = head
	var blockParams []string
	for {
		if p.done() {
			if inParen {
				return c, nil, p.fail("unclosed subexpression: expected )")
			}
			break
		}
		if inParen && p.s[p.i] == ')' {
			p.i++
			break
		}
		if strings.HasPrefix(p.s[p.i:], "as |") || strings.HasPrefix(p.s[p.i:], "as|") {
			if !allowBlockParams {
				return c, nil, p.fail("block parameters are only allowed on blocks")
			}
			rest := p.s[p.i+strings.IndexByte(p.s[p.i:], '|')+1:]
			end := strings.IndexByte(rest, '|')
			if end < 0 {
				return c, nil, p.fail("unclosed block parameters")
			}
			blockParams = strings.Fields(rest[:end])
			p.i = len(p.s) - len(rest) + end + 1
			if !p.done() {
				return c, nil, p.fail("unexpected text after block parameters")
			}
			break
		}
		if key, ok := p.hashKey(); ok {
			v, err := p.parseExpr()
			if err != nil {
				return c, nil, err
			}
			if v == nil {
				return c, nil, p.fail("expected a value for " + key)
			}
			c.hash = append(c.hash, hashPair{key: key, value: v})
			continue
		}
		if len(c.hash) > 0 {
			return c, nil, p.fail("positional arguments must come before hash arguments")
		}
		v, err := p.parseExpr()
		if err != nil {
			return c, nil, err
		}
		if v == nil {
			return c, nil, p.fail("unexpected " + strconv.Quote(p.s[p.i:p.i+1]))
		}
		c.params = append(c.params, v)
	}
	return c, blockParams, nil
}

// hashKey reads `key=` when present.
func (p *exprParser) hashKey() (string, bool) {
	j := p.i
	for j < len(p.s) && isIDChar(p.s[j]) {
		j++
	}
	if j == p.i || j >= len(p.s) || p.s[j] != '=' {
		return "", false
	}
	key := p.s[p.i:j]
	p.i = j + 1
	p.skipSpace()
	return key, true
}

// parseExpr reads one value: a subexpression, string, number, keyword or
// path. It returns nil at a character that starts none of them.
func (p *exprParser) parseExpr() (expr, error) {
	p.skipSpace()
	if p.i >= len(p.s) {
		return nil, nil
	}
	switch c := p.s[p.i]; {
	case c == '(':
		if p.nesting >= maxSubexprNesting {
			return nil, p.fail("subexpressions nested more than " + strconv.Itoa(maxSubexprNesting) + " levels deep")
		}
		p.i++
		p.nesting++
		cl, _, err := p.parseCallTo(false, true)
		p.nesting--
		if err != nil {
			return nil, err
		}
		return &subExpr{call: cl}, nil
	case c == '"' || c == '\'':
		end := p.i + 1
		var b strings.Builder
		for end < len(p.s) && p.s[end] != c {
			if p.s[end] == '\\' && end+1 < len(p.s) && p.s[end+1] == c {
				end++
			}
			b.WriteByte(p.s[end])
			end++
		}
		if end >= len(p.s) {
			return nil, p.fail("unterminated string")
		}
		p.i = end + 1
		return &literal{value: b.String()}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		if n, ok := p.number(); ok {
			return &literal{value: n}, nil
		}
	}
	for _, kw := range []struct {
		word  string
		value any
	}{{"true", true}, {"false", false}, {"null", nil}, {"undefined", undefinedValue{}}} {
		if strings.HasPrefix(p.s[p.i:], kw.word) && p.literalEnds(p.i+len(kw.word)) {
			p.i += len(kw.word)
			return &literal{value: kw.value}, nil
		}
	}
	return p.parsePath()
}

// literalEnds reports whether a literal may end at j (handlebars.js's
// LITERAL_LOOKAHEAD).
func (p *exprParser) literalEnds(j int) bool {
	return j >= len(p.s) || strings.IndexByte("=~} \t\r\n/.)|", p.s[j]) >= 0
}

func (p *exprParser) number() (float64, bool) {
	j := p.i
	if p.s[j] == '-' {
		j++
	}
	digits := j
	for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
		j++
	}
	if j == digits {
		return 0, false
	}
	if j+1 < len(p.s) && p.s[j] == '.' && p.s[j+1] >= '0' && p.s[j+1] <= '9' {
		j++
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
	}
	if !p.literalEnds(j) {
		return 0, false
	}
	n, err := strconv.ParseFloat(p.s[p.i:j], 64)
	if err != nil {
		return 0, false
	}
	p.i = j
	return n, true
}

// parsePath reads a path: [@], ../ prefixes, this/ or ./, then segments
// separated by . or /, where a segment is an identifier or [literal].
func (p *exprParser) parsePath() (expr, error) {
	start := p.i
	path := &pathExpr{}
	if p.s[p.i] == '@' {
		path.data = true
		p.i++
	}
	atEnd := func() bool { return p.literalEnds(p.i) && (p.i >= len(p.s) || (p.s[p.i] != '.' && p.s[p.i] != '/')) }
	for {
		rest := p.s[p.i:]
		if strings.HasPrefix(rest, "../") {
			path.depth++
			p.i += 3
			continue
		}
		if strings.HasPrefix(rest, "..") && p.literalEnds(p.i+2) {
			path.depth++
			p.i += 2
		}
		break
	}
	if path.depth > 0 {
		path.scoped = true
	}
	rest := p.s[p.i:]
	switch {
	case strings.HasPrefix(rest, "./"):
		path.scoped = true
		p.i += 2
	case strings.HasPrefix(rest, ".") && p.literalEnds(p.i+1):
		path.scoped = true
		p.i++
	case strings.HasPrefix(rest, "this") && (p.literalEnds(p.i+4) || p.s[p.i+4] == '.' || p.s[p.i+4] == '/') && !path.data:
		path.scoped = true
		p.i += 4
		if p.i < len(p.s) && (p.s[p.i] == '.' || p.s[p.i] == '/') {
			p.i++
		}
	}
	for !atEnd() {
		if p.i < len(p.s) && p.s[p.i] == '[' {
			end := strings.IndexByte(p.s[p.i:], ']')
			if end < 0 {
				return nil, p.fail("unterminated [ segment")
			}
			path.parts = append(path.parts, p.s[p.i+1:p.i+end])
			p.i += end + 1
		} else {
			j := p.i
			for j < len(p.s) && isIDChar(p.s[j]) {
				j++
			}
			if j == p.i {
				if p.i == start {
					return nil, nil
				}
				return nil, p.fail("invalid path " + strconv.Quote(p.s[start:min(len(p.s), j+1)]))
			}
			seg := p.s[p.i:j]
			if len(path.parts) > 0 && isNumber(seg) {
				// handlebars.js reads a.1 as a path and a number: a
				// parse error. a.[1] is the way to write it.
				return nil, p.fail("invalid path " + strconv.Quote(p.s[start:j]) + ": write a.[1] for an index")
			}
			path.parts = append(path.parts, seg)
			p.i = j
		}
		if p.i < len(p.s) && (p.s[p.i] == '.' || p.s[p.i] == '/') {
			p.i++
			if p.i >= len(p.s) || (!isIDChar(p.s[p.i]) && p.s[p.i] != '[') {
				return nil, p.fail("invalid path " + strconv.Quote(p.s[start:p.i]))
			}
		}
	}
	if p.i == start || (path.data && len(path.parts) == 0) {
		return nil, p.fail("invalid path " + strconv.Quote(p.s[start:min(len(p.s), p.i+1)]))
	}
	path.original = p.s[start:p.i]
	return path, nil
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
