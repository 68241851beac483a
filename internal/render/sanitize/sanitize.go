// Package sanitize removes what could run from rendered email HTML, for
// POST /templates/test-render (D40): scripts, frames, script URLs and
// event handler attributes, counting what it removed. Email HTML (tables,
// inline styles, images, cid: and mailto: links) passes through.
//
// The document is parsed the way a browser parses it (x/net/html), cleaned
// as a tree and serialized again, so tricks that rely on malformed markup
// or encodings are judged on what a browser would see.
package sanitize

import (
	"bytes"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Report counts what was removed (4.3).
type Report struct {
	Scripts         int `json:"scripts"`
	Iframes         int `json:"iframes"`
	JavascriptHrefs int `json:"javascriptHrefs"`
	EventHandlers   int `json:"eventHandlers"`
}

// removedElements are dropped with their content. They are not executable
// by themselves but change or hide what loads (base URL changes, markup
// that parses differently without scripting); what they carry is counted
// (their handlers and script URLs, the scripts and frames inside).
var removedElements = map[string]bool{
	"base": true, "noscript": true, "noembed": true,
	"noframes": true, "xmp": true, "plaintext": true, "param": true,
}

// embeddedElements load another document or a plugin, as a frame does:
// removed with their content and counted in iframes.
var embeddedElements = map[string]bool{"object": true, "embed": true, "applet": true, "portal": true}

// urlAttributes hold URLs a client may follow or load.
var urlAttributes = map[string]bool{
	"href": true, "src": true, "action": true, "formaction": true, "background": true, "poster": true,
	"data": true, "lowsrc": true, "dynsrc": true, "cite": true, "longdesc": true, "codebase": true,
	"manifest": true, "icon": true, "ping": true, "srcset": true, "imagesrcset": true, "usemap": true,
	"profile": true, "classid": true, "archive": true,
	// SVG animation can set an href to these values.
	"to": true, "from": true, "values": true, "by": true,
}

// HTML returns doc without anything executable, and what was removed.
func HTML(doc string) (string, Report) {
	out, rep := cleanHTML(doc)
	// The parser drops some tags whole, their attributes with them: a
	// <body onload> inside a fragment, a second <body> or <html> whose
	// attributes are already there. Their handlers were written all the
	// same, so the count is at least what the markup itself carries
	// (issue 24, D40).
	rep.EventHandlers = max(rep.EventHandlers, writtenHandlers(doc))
	return out, rep
}

func cleanHTML(doc string) (string, Report) {
	var rep Report
	var buf bytes.Buffer
	if isDocument(doc) {
		root, err := html.Parse(strings.NewReader(doc))
		if err != nil {
			return "", rep
		}
		clean(root, &rep)
		_ = html.Render(&buf, root)
		return buf.String(), rep
	}
	body := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
	nodes, err := html.ParseFragment(strings.NewReader(doc), body)
	if err != nil {
		return "", rep
	}
	for _, n := range nodes {
		body.AppendChild(n)
	}
	clean(body, &rep)
	for c := body.FirstChild; c != nil; c = c.NextSibling {
		_ = html.Render(&buf, c)
	}
	return buf.String(), rep
}

// isDocument tells a whole document (kept whole, with head and styles)
// from a fragment (kept a fragment).
func isDocument(doc string) bool {
	head := strings.ToLower(strings.TrimSpace(doc[:min(len(doc), 1024)]))
	return strings.HasPrefix(head, "<!doctype") || strings.HasPrefix(head, "<html") || strings.Contains(head, "<html")
}

func clean(n *html.Node, rep *Report) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if drop(c, rep) {
			n.RemoveChild(c)
		} else {
			clean(c, rep)
		}
		c = next
	}
}

// drop cleans c's attributes and reports whether c must go altogether.
func drop(c *html.Node, rep *Report) bool {
	switch c.Type {
	case html.CommentNode:
		// Conditional comments are markup for some clients; keep harmless
		// comments (Outlook's <!--[if mso]> tables), drop those that hide
		// active content, counted as what they hide.
		scripts := strings.Count(strings.ToLower(c.Data), "<script")
		rep.Scripts += scripts
		if scripts == 0 && dangerousText(c.Data) {
			rep.JavascriptHrefs++
			return true
		}
		return scripts > 0
	case html.ElementNode:
	default:
		return false
	}
	name := strings.ToLower(c.Data)
	switch {
	case !plainName(name):
		// "<scr<script>" parses as an element named "scr<script": inert,
		// but no email needs such names; drop it and count what it mimics.
		if strings.Contains(name, "script") {
			rep.Scripts++
		}
		return true
	case name == "script":
		rep.Scripts++
		return true
	case name == "iframe" || name == "frame" || name == "frameset":
		rep.Iframes++
		return true
	case embeddedElements[name]:
		// Other embedded documents count with the frames.
		rep.Iframes++
		countCarried(c, rep)
		return true
	case removedElements[name]:
		countCarried(c, rep)
		return true
	case name == "meta" && hasAttr(c, "charset") && !hasAttr(c, "http-equiv"):
		// The answer is UTF-8 JSON: a declared charset (UTF-7 and the
		// like) could only make a client read the markup differently.
		return true
	case name == "meta" && hasAttr(c, "http-equiv"):
		// A refresh to a script URL is one.
		for _, a := range c.Attr {
			if strings.EqualFold(a.Key, "content") && (dangerousText(a.Val) || strings.Contains(squash(a.Val), "data:text")) {
				rep.JavascriptHrefs++
			}
		}
		countCarried(c, rep)
		return true
	case name == "style" && c.FirstChild != nil && dangerousStyle(textOf(c)):
		countStyle(textOf(c), rep)
		return true
	}
	cleanAttributes(c, rep)
	return false
}

// countCarried counts what an element removed whole carried: its event
// handlers and script URLs, and the scripts, frames and the rest inside it,
// as if it had stayed.
func countCarried(c *html.Node, rep *Report) {
	cleanAttributes(c, rep)
	clean(c, rep)
}

// cleanAttributes removes and counts c's event handlers, script URLs and
// code-running styles.
func cleanAttributes(c *html.Node, rep *Report) {
	kept := c.Attr[:0]
	for _, a := range c.Attr {
		key := strings.ToLower(a.Key)
		switch {
		case strings.HasPrefix(key, "on"):
			rep.EventHandlers++
			continue
		case urlAttributes[key] && dangerousURLs(key, a.Val):
			rep.JavascriptHrefs++
			continue
		case key == "style" && dangerousStyle(a.Val):
			countStyle(a.Val, rep)
			continue
		}
		kept = append(kept, a)
	}
	c.Attr = kept
}

func plainName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == ':' || c == '_' || c == '.') {
			return false
		}
	}
	return name != ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if strings.EqualFold(a.Key, key) {
			return true
		}
	}
	return false
}

func textOf(n *html.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

// squash drops what browsers ignore inside a URL scheme: ASCII whitespace
// and control characters anywhere, and lower-cases.
func squash(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r <= 0x20 || r == 0x7f || r == 0xad || r == 0x200b || r == 0xfeff {
			continue
		}
		b.WriteRune(r)
	}
	return strings.ToLower(b.String())
}

var safeDataURL = regexp.MustCompile(`^data:image/(png|gif|jpe?g|webp|bmp|x-icon)[;,]`)

// dangerousURL reports a javascript:, vbscript: or livescript: URL, or a
// data: URL that is not an image.
func dangerousURL(raw string) bool {
	// Old clients took quotes and backticks as delimiters: judge what
	// follows them.
	u := strings.TrimLeft(squash(raw), "`'\"")
	for _, scheme := range []string{"javascript:", "vbscript:", "livescript:", "mocha:"} {
		if strings.HasPrefix(u, scheme) {
			return true
		}
	}
	if strings.HasPrefix(u, "data:") {
		return !safeDataURL.MatchString(u)
	}
	return false
}

// dangerousURLs checks an attribute that may hold several URLs (srcset,
// SVG animation values).
func dangerousURLs(key, val string) bool {
	switch key {
	case "srcset", "imagesrcset":
		for _, cand := range strings.Split(val, ",") {
			if f := strings.Fields(cand); len(f) > 0 && dangerousURL(f[0]) {
				return true
			}
		}
		return false
	case "values":
		for _, v := range strings.Split(val, ";") {
			if dangerousURL(v) {
				return true
			}
		}
		return false
	}
	return dangerousURL(val)
}

// dangerousText finds a script scheme anywhere in a text.
func dangerousText(s string) bool {
	u := squash(s)
	return strings.Contains(u, "javascript:") || strings.Contains(u, "vbscript:") || strings.Contains(u, "livescript:")
}

var cssComment = regexp.MustCompile(`/\*.*?\*/`)

// countStyle counts CSS removed by dangerousStyle by what it would run: a
// script URL with the script URLs, expression(), behavior and
// -moz-binding (code in some clients) with the scripts. CSS refused only
// for its form (an @import, a backslash escape) counts as neither.
func countStyle(css string, rep *Report) {
	s := squash(cssComment.ReplaceAllString(css, ""))
	switch {
	case dangerousText(s) || strings.Contains(s, "data:text"):
		rep.JavascriptHrefs++
	case strings.Contains(s, "expression(") || strings.Contains(s, "behavior:") || strings.Contains(s, "-moz-binding"):
		rep.Scripts++
	}
}

// dangerousStyle finds CSS that can run code in some client: expression(),
// -moz-binding, behavior, script URLs and @import of anything.
func dangerousStyle(css string) bool {
	s := squash(cssComment.ReplaceAllString(css, ""))
	// CSS escapes such as \65 xpression: undo the common ones by dropping
	// backslashes and hex escapes of letters would need a CSS parser; a
	// backslash in a style is refused instead.
	if strings.Contains(s, "\\") {
		return true
	}
	for _, bad := range []string{"expression(", "-moz-binding", "behavior:", "javascript:", "vbscript:", "@import", "url(data:text", "url(\"data:text", "url('data:text"} {
		if strings.Contains(s, bad) {
			return true
		}
	}
	return false
}
