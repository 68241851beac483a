package templating

import (
	"context"
	"regexp"
	"strings"

	"github.com/carteiro/carteiro/internal/render/handlebars"
)

// formatHandlebars pretty-prints Handlebars HTML conservatively: only the
// whitespace between two block-level boundaries (block HTML tags, HTML
// comments, Handlebars block tags and comments) is rewritten, as a newline
// and two spaces per level. Text, inline markup, attributes, mustaches and
// the content of pre, textarea, script and style are kept byte for byte, so
// what the template renders changes only in whitespace between block
// elements, which HTML ignores.
func formatHandlebars(_ context.Context, src string) (string, error) {
	if _, err := handlebars.Compile(src); err != nil {
		return "", err
	}
	toks := tokenizeMarkup(src)
	var b strings.Builder
	depth := 0
	for i, t := range toks {
		if t.kind == tokSpace {
			prev, next := i > 0 && toks[i-1].boundary(), i+1 < len(toks) && toks[i+1].boundary()
			if !prev || !next {
				b.WriteString(t.text)
				continue
			}
			nextDepth := depth
			if toks[i+1].closes() {
				nextDepth--
			}
			b.WriteString("\n")
			if strings.Count(t.text, "\n") > 1 {
				b.WriteString("\n")
			}
			b.WriteString(strings.Repeat("  ", max(nextDepth, 0)))
			continue
		}
		if i > 0 && t.boundary() && toks[i-1].boundary() {
			// Two boundaries with nothing between: give the second its line.
			nextDepth := depth
			if t.closes() {
				nextDepth--
			}
			b.WriteString("\n" + strings.Repeat("  ", max(nextDepth, 0)))
		}
		b.WriteString(t.text)
		switch {
		case t.closes() && t.opens(): // {{else}}
		case t.closes():
			depth = max(depth-1, 0)
		case t.opens():
			depth++
		}
	}
	out := b.String()
	if strings.HasSuffix(src, "\n") && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return out, nil
}

type tokKind int

const (
	tokText tokKind = iota
	tokSpace
	tokHTMLOpen
	tokHTMLClose
	tokHTMLOther // void elements, comments, doctype
	tokMustache
	tokBlockOpen  // {{#x}}, {{^x}}
	tokBlockElse  // {{else}}, {{^}}
	tokBlockClose // {{/x}}
	tokHBComment
	tokVerbatim // pre, textarea, script, style, raw blocks: kept whole
)

type markupTok struct {
	kind  tokKind
	text  string
	block bool // an HTML tag of a block-level element
}

func (t markupTok) boundary() bool {
	switch t.kind {
	case tokBlockOpen, tokBlockElse, tokBlockClose, tokHBComment:
		return true
	case tokHTMLOpen, tokHTMLClose, tokHTMLOther, tokVerbatim:
		return t.block
	}
	return false
}

func (t markupTok) opens() bool {
	return (t.kind == tokHTMLOpen && t.block) || t.kind == tokBlockOpen || t.kind == tokBlockElse
}

func (t markupTok) closes() bool {
	return (t.kind == tokHTMLClose && t.block) || t.kind == tokBlockClose || t.kind == tokBlockElse
}

var blockElements = map[string]bool{
	"html": true, "head": true, "body": true, "title": true, "meta": true, "link": true, "style": true,
	"table": true, "thead": true, "tbody": true, "tfoot": true, "tr": true, "td": true, "th": true, "caption": true,
	"colgroup": true, "col": true, "div": true, "p": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true,
	"h6": true, "ul": true, "ol": true, "li": true, "section": true, "header": true, "footer": true, "main": true,
	"article": true, "aside": true, "nav": true, "center": true, "hr": true, "blockquote": true, "pre": true,
	"textarea": true, "script": true, "!doctype": true, "form": true, "figure": true, "dl": true, "dt": true, "dd": true,
}

var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true, "input": true,
	"link": true, "meta": true, "source": true, "track": true, "wbr": true, "!doctype": true,
}

var verbatimElements = []string{"pre", "textarea", "script", "style"}

var tagName = regexp.MustCompile(`^</?\s*([A-Za-z!][A-Za-z0-9:-]*)`)

// tokenizeMarkup splits src into whitespace runs, text, HTML tags and
// Handlebars tags. A tag that contains a mustache ends at the > outside
// any mustache.
func tokenizeMarkup(src string) []markupTok {
	var toks []markupTok
	i := 0
	textStart := 0
	flushText := func(end int) {
		for textStart < end {
			// Split text into whitespace and non-whitespace runs.
			j := textStart
			isWS := isSpaceByte(src[j])
			for j < end && isSpaceByte(src[j]) == isWS {
				j++
			}
			kind := tokText
			if isWS {
				kind = tokSpace
			}
			toks = append(toks, markupTok{kind: kind, text: src[textStart:j]})
			textStart = j
		}
	}
	for i < len(src) {
		switch {
		case strings.HasPrefix(src[i:], "{{{{"):
			end := strings.Index(src[i+4:], "{{{{/")
			if end < 0 {
				i = len(src)
				continue
			}
			close := strings.Index(src[i+4+end:], "}}}}")
			stop := len(src)
			if close >= 0 {
				stop = i + 4 + end + close + 4
			}
			flushText(i)
			toks = append(toks, markupTok{kind: tokVerbatim, text: src[i:stop]})
			i, textStart = stop, stop
		case strings.HasPrefix(src[i:], "{{"):
			end := mustacheEnd(src, i)
			flushText(i)
			text := src[i:end]
			toks = append(toks, markupTok{kind: mustacheKind(text), text: text})
			i, textStart = end, end
		case src[i] == '<' && strings.HasPrefix(src[i:], "<!--"):
			end := strings.Index(src[i:], "-->")
			stop := len(src)
			if end >= 0 {
				stop = i + end + 3
			}
			flushText(i)
			toks = append(toks, markupTok{kind: tokHTMLOther, text: src[i:stop], block: true})
			i, textStart = stop, stop
		case src[i] == '<' && tagName.MatchString(src[i:]):
			end := tagEnd(src, i)
			flushText(i)
			text := src[i:end]
			name := strings.ToLower(tagName.FindStringSubmatch(text)[1])
			t := markupTok{text: text, block: blockElements[name]}
			switch {
			case strings.HasPrefix(text, "</"):
				t.kind = tokHTMLClose
			case voidElements[name] || strings.HasSuffix(text, "/>"):
				t.kind = tokHTMLOther
			default:
				t.kind = tokHTMLOpen
			}
			if t.kind == tokHTMLOpen && containsString(verbatimElements, name) {
				// Keep the element whole: its content is not markup.
				closeTag := "</" + name
				c := strings.Index(strings.ToLower(src[end:]), closeTag)
				if c >= 0 {
					stop := end + c
					if gt := strings.IndexByte(src[stop:], '>'); gt >= 0 {
						stop += gt + 1
					}
					t.kind, t.text, end = tokVerbatim, src[i:stop], stop
				}
			}
			toks = append(toks, t)
			i, textStart = end, end
		default:
			i++
		}
	}
	flushText(len(src))
	return toks
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// mustacheEnd returns the offset after the tag that starts at i.
func mustacheEnd(src string, i int) int {
	if strings.HasPrefix(src[i:], "{{!--") {
		if e := strings.Index(src[i:], "--}}"); e >= 0 {
			return i + e + 4
		}
		if e := strings.Index(src[i:], "--~}}"); e >= 0 {
			return i + e + 5
		}
		return len(src)
	}
	closer := "}}"
	if strings.HasPrefix(src[i:], "{{{") || strings.HasPrefix(src[i:], "{{~{") {
		closer = "}}}"
	}
	if e := strings.Index(src[i+2:], closer); e >= 0 {
		return i + 2 + e + len(closer)
	}
	return len(src)
}

// tagEnd returns the offset after an HTML tag's >, skipping quoted
// attribute values and mustaches.
func tagEnd(src string, i int) int {
	var quote byte
	for j := i + 1; j < len(src); j++ {
		c := src[j]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case strings.HasPrefix(src[j:], "{{"):
			j = mustacheEnd(src, j) - 1
		case c == '>':
			return j + 1
		}
	}
	return len(src)
}

func mustacheKind(tag string) tokKind {
	inner := strings.TrimPrefix(tag, "{{")
	inner = strings.TrimLeft(strings.TrimPrefix(inner, "~"), " \t\r\n")
	switch {
	case strings.HasPrefix(inner, "!"):
		return tokHBComment
	case strings.HasPrefix(inner, "#"):
		return tokBlockOpen
	case strings.HasPrefix(inner, "/"):
		return tokBlockClose
	case strings.HasPrefix(inner, "^"):
		rest := strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(inner[1:], "}}"), "~"))
		if rest == "" {
			return tokBlockElse
		}
		return tokBlockOpen
	case strings.HasPrefix(inner, "else"):
		return tokBlockElse
	}
	return tokMustache
}
