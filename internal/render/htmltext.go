// Package render turns email content into its final forms. This file makes
// the plain-text part of an HTML-only email (D20).
package render

import (
	"strings"

	"golang.org/x/net/html"

	"github.com/carteiro/carteiro/internal/render/sanitize"
)

// blockElements end a line of text where they open and close.
var blockElements = map[string]bool{
	"p": true, "div": true, "br": true, "tr": true, "table": true, "h1": true, "h2": true, "h3": true,
	"h4": true, "h5": true, "h6": true, "li": true, "ul": true, "ol": true, "blockquote": true, "hr": true,
	"section": true, "article": true, "header": true, "footer": true, "pre": true,
}

// skippedElements hold no readable text.
var skippedElements = map[string]bool{"script": true, "style": true, "head": true, "title": true}

// HTMLToText renders readable plain text from an HTML body: text content
// with line breaks at block elements, links as "text (url)" when the url
// differs from the text, scripts and styles dropped, whitespace collapsed.
func HTMLToText(src string) string {
	z := html.NewTokenizer(strings.NewReader(src))
	var out strings.Builder
	var href []string
	skip := 0
	newline := func() {
		s := out.String()
		if s != "" && !strings.HasSuffix(s, "\n") {
			out.WriteByte('\n')
		}
	}
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return tidy(out.String())
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, hasAttr := z.TagName()
			tag := string(name)
			if skippedElements[tag] {
				if tt == html.StartTagToken {
					skip++
				} else if tt == html.EndTagToken && skip > 0 {
					skip--
				}
				continue
			}
			if blockElements[tag] {
				newline()
			}
			if tag == "a" {
				if tt == html.StartTagToken {
					link := ""
					for hasAttr {
						var k, v []byte
						k, v, hasAttr = z.TagAttr()
						if string(k) == "href" {
							link = string(v)
						}
					}
					href = append(href, link)
				} else if tt == html.EndTagToken && len(href) > 0 {
					link := href[len(href)-1]
					href = href[:len(href)-1]
					// A script or data: URL is never written out: the text
					// part has no link to neutralise, only the URL itself.
					if link != "" && !strings.HasPrefix(link, "#") && sanitize.SafeLink(link) && !strings.Contains(out.String(), link) {
						out.WriteString(" (" + link + ")")
					}
				}
			}
		case html.TextToken:
			if skip > 0 {
				continue
			}
			text := string(z.Text())
			words := strings.Fields(text)
			if len(words) == 0 {
				if text != "" {
					space(&out)
				}
				continue
			}
			if isSpace(text[0]) {
				space(&out)
			}
			out.WriteString(strings.Join(words, " "))
			if isSpace(text[len(text)-1]) {
				out.WriteByte(' ')
			}
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// space adds one space unless the text already ends a word or line.
func space(b *strings.Builder) {
	s := b.String()
	if s != "" && !isSpace(s[len(s)-1]) {
		b.WriteByte(' ')
	}
}

// tidy trims each line and removes runs of blank lines.
func tidy(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	blank := false
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			if !blank && len(out) > 0 {
				out = append(out, "")
			}
			blank = true
			continue
		}
		blank = false
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}
