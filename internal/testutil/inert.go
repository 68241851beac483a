package testutil

import (
	"fmt"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// ExecutableParts re-parses an HTML document or fragment as a browser
// would and lists whatever in it could run code: script-capable elements,
// event-handler attributes, script or HTML data URLs in attributes that
// hold URLs, CSS that runs code, and a script or iframe start tag left in
// the markup as text. An empty list means inert. It is written apart from
// internal/render/sanitize, so tests of the sanitizer (D40) do not check
// its output with its own rules.
func ExecutableParts(doc string) []string {
	var nodes []*html.Node
	if strings.Contains(strings.ToLower(doc[:min(len(doc), 512)]), "<html") {
		root, err := html.Parse(strings.NewReader(doc))
		if err != nil {
			return []string{"does not parse: " + err.Error()}
		}
		nodes = []*html.Node{root}
	} else {
		var err error
		body := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
		if nodes, err = html.ParseFragment(strings.NewReader(doc), body); err != nil {
			return []string{"does not parse: " + err.Error()}
		}
	}
	var found []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			name := strings.ToLower(n.Data)
			switch name {
			case "script", "iframe", "frame", "frameset", "object", "embed", "applet", "base", "portal":
				found = append(found, "<"+name+">")
			case "meta":
				for _, a := range n.Attr {
					if strings.EqualFold(a.Key, "http-equiv") && strings.EqualFold(strings.TrimSpace(a.Val), "refresh") {
						found = append(found, "<meta http-equiv=refresh>")
					}
				}
			case "style":
				if css := textContent(n); scriptCSS(css) {
					found = append(found, fmt.Sprintf("<style>%s</style>", css))
				}
			}
			for _, a := range n.Attr {
				key := strings.ToLower(a.Key)
				switch {
				case strings.HasPrefix(key, "on"):
					found = append(found, fmt.Sprintf("%s=%q", a.Key, a.Val))
				case key == "style" && scriptCSS(a.Val):
					found = append(found, fmt.Sprintf("style=%q", a.Val))
				case urlHolding[key] && scriptURLIn(a.Val):
					found = append(found, fmt.Sprintf("%s=%q", a.Key, a.Val))
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range nodes {
		walk(n)
	}
	if m := startTagAsText.FindString(doc); m != "" {
		found = append(found, "markup "+m)
	}
	return found
}

// urlHolding are the attributes whose value a client follows or loads as a
// URL, including SVG animation values that can set an href.
var urlHolding = map[string]bool{
	"href": true, "xlink:href": true, "src": true, "srcset": true, "imagesrcset": true, "action": true,
	"formaction": true, "background": true, "poster": true, "data": true, "lowsrc": true, "dynsrc": true,
	"codebase": true, "classid": true, "values": true, "to": true, "from": true, "by": true,
}

var startTagAsText = regexp.MustCompile(`(?i)<(script|iframe)[\s/>]`)

// scriptURLIn reports a URL with a script scheme, or an HTML or SVG data
// URL, in an attribute value: each URL of srcset or of an SVG animation
// value, read as browsers read a scheme (leading spaces and control
// characters skipped, tabs and newlines inside ignored, any case).
func scriptURLIn(v string) bool {
	for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ';' }) {
		u := strings.ToLower(strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, strings.TrimLeft(part, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")))
		for _, bad := range []string{"javascript:", "vbscript:", "livescript:", "data:text/html", "data:image/svg", "data:application"} {
			if strings.HasPrefix(u, bad) {
				return true
			}
		}
	}
	return false
}

// scriptCSS reports CSS that runs code in some client.
func scriptCSS(css string) bool {
	s := strings.ToLower(strings.Join(strings.Fields(css), ""))
	for _, bad := range []string{"expression(", "-moz-binding", "behavior:", "javascript:", "vbscript:"} {
		if strings.Contains(s, bad) {
			return true
		}
	}
	return false
}

func textContent(n *html.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}
