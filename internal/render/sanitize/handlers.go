package sanitize

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
)

// writtenHandlers counts the event handler attributes on the start tags
// of doc as the tokenizer reads them, before the parser keeps or drops
// the tags (a tag inside raw text, such as a script's, is text here too).
func writtenHandlers(doc string) int {
	z := html.NewTokenizer(strings.NewReader(doc))
	n := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return n
		case html.StartTagToken, html.SelfClosingTagToken:
			_, more := z.TagName()
			for more {
				var key []byte
				key, _, more = z.TagAttr()
				if bytes.HasPrefix(bytes.ToLower(key), []byte("on")) {
					n++
				}
			}
		}
	}
}
