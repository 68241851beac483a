package tracking

import (
	"html"
	"sort"
	"strings"

	xhtml "golang.org/x/net/html"
)

// NoTrackAttribute marks a link the sender does not want tracked. Instrument
// leaves such links alone and removes the marker, which means nothing to
// mail clients.
const NoTrackAttribute = "data-carteiro-notrack"

// Options chooses what Instrument does (D53: tracking is configurable per
// organization).
type Options struct {
	// Open adds the open pixel.
	Open bool
	// Click rewrites links into click redirects.
	Click bool
	// Skip lists URL prefixes never rewritten, such as the unsubscribe
	// URL (D43), whose own endpoint must see the recipient's click and
	// whose link must stay recognisable. A prefix is compared with the
	// link's decoded URL as is.
	Skip []string
}

// Instrument rewrites an HTML body for tracking (D53). With opts.Click,
// every http(s) href of an <a> or <area> becomes baseURL/t/c/<token>, except
// those listed in opts.Skip, those marked with NoTrackAttribute and those
// already pointing at baseURL/t/; mailto:, tel:, sms:, #fragment, cid:,
// data:, javascript: and relative links are never rewritten. With
// opts.Open, a 1x1 pixel <img src="baseURL/t/o/<token>"> goes just before
// the last </body>, or at the very end without one. NoTrackAttribute is
// removed from every <a> and <area>, whatever the options.
//
// Only those bytes change: the document is tokenized and copied raw, never
// re-serialized, so the sender's markup reaches the recipient untouched.
// Entities in hrefs are decoded before signing, so the redirect goes to the
// URL the browser would have opened.
func Instrument(document string, emailID string, baseURL string, s Signer, opts Options) string {
	r := rewriter{
		emailID: emailID,
		base:    strings.TrimRight(baseURL, "/"),
		signer:  s,
		opts:    opts,
	}
	return r.rewrite(document)
}

// rewriter carries one Instrument call.
type rewriter struct {
	emailID string
	base    string
	signer  Signer
	opts    Options
}

// rewrite copies document token by token, editing link tags, and puts the
// pixel in place.
func (r *rewriter) rewrite(document string) string {
	var out strings.Builder
	out.Grow(len(document) + len(document)/8 + 256)
	z := xhtml.NewTokenizer(strings.NewReader(document))
	cursor := 0
	pixelAt := -1 // offset in out of the last </body>
	for {
		tt := z.Next()
		if tt == xhtml.ErrorToken {
			break
		}
		// The tokens' raw bytes tile the input. Checking it before
		// TagName/TagAttr (which lowercase and unescape in place) guards
		// against any tokenizer surprise: the rest is then copied as is.
		raw := z.Raw()
		if cursor+len(raw) > len(document) || document[cursor:cursor+len(raw)] != string(raw) {
			break
		}
		segment := document[cursor : cursor+len(raw)]
		cursor += len(raw)
		switch tt {
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if hasAttr && (string(name) == "a" || string(name) == "area") {
				segment = r.rewriteLinkTag(segment, z)
			}
		case xhtml.EndTagToken:
			if name, _ := z.TagName(); string(name) == "body" {
				pixelAt = out.Len()
			}
		}
		out.WriteString(segment)
	}
	out.WriteString(document[cursor:])
	if !r.opts.Open {
		return out.String()
	}
	result := out.String()
	if pixelAt < 0 {
		return result + r.pixelTag()
	}
	return result[:pixelAt] + r.pixelTag() + result[pixelAt:]
}

// pixelTag is the open pixel. Its style keeps it invisible without
// display:none, which some clients would take as a reason not to load it.
func (r *rewriter) pixelTag() string {
	src := r.base + "/t/o/" + OpenToken(r.signer, r.emailID)
	return `<img src="` + html.EscapeString(src) + `" width="1" height="1" alt="" ` +
		`style="display:block;width:1px;height:1px;border:0;margin:0;padding:0;" />`
}

// edit replaces tag[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// rewriteLinkTag edits one raw <a> or <area> tag: it drops NoTrackAttribute
// and, unless the link is marked so or is not trackable, replaces the href
// value. z is positioned on the tag and gives the decoded attribute values.
func (r *rewriter) rewriteLinkTag(tag string, z *xhtml.Tokenizer) string {
	href, hasHref, noTrack := decodedLinkAttributes(z)
	if !noTrack && (!r.opts.Click || !hasHref) {
		return tag
	}
	attrs := scanAttributes(tag)
	var edits []edit
	seen := map[string]bool{}
	for _, a := range attrs {
		name := a.name(tag)
		if name == NoTrackAttribute {
			edits = append(edits, removal(tag, a))
			continue
		}
		// The tokenizer keeps only the first occurrence of a name; the
		// browser follows that one, so only that one is rewritten.
		if name != "href" || seen[name] || noTrack || !r.opts.Click {
			seen[name] = true
			continue
		}
		seen[name] = true
		if destination, ok := r.trackable(href); ok {
			edits = append(edits, r.hrefReplacement(a, destination))
		}
	}
	if hasHref != seen["href"] {
		// The scan disagrees with the tokenizer: leave the tag alone
		// rather than guess.
		return tag
	}
	return applyEdits(tag, edits)
}

// decodedLinkAttributes reads the tokenizer's view of the current tag: the
// first href with entities decoded the way a browser decodes attribute
// values (so "&copy=" in a query stays as is), and whether NoTrackAttribute
// is present.
func decodedLinkAttributes(z *xhtml.Tokenizer) (href string, hasHref, noTrack bool) {
	for more := true; more; {
		var key, value []byte
		key, value, more = z.TagAttr()
		switch string(key) {
		case "href":
			href, hasHref = string(value), true
		case NoTrackAttribute:
			noTrack = true
		}
	}
	return href, hasHref, noTrack
}

// trackable returns the URL a click on href should be redirected to, or
// false when the link must be left as it is.
func (r *rewriter) trackable(href string) (string, bool) {
	destination := normalizeHref(href)
	if !validDestination(destination) {
		return "", false
	}
	for _, prefix := range r.opts.Skip {
		if prefix != "" && strings.HasPrefix(destination, prefix) {
			return "", false
		}
	}
	if r.base != "" && strings.HasPrefix(destination, r.base+"/t/") {
		return "", false // already a tracking URL: never wrap twice
	}
	return destination, true
}

// hrefReplacement replaces the value of href a with the click redirect to
// destination, keeping its quotes; an unquoted value stays unquoted unless
// the new one holds a space.
func (r *rewriter) hrefReplacement(a attribute, destination string) edit {
	value := html.EscapeString(r.base + "/t/c/" + ClickToken(r.signer, r.emailID, destination))
	if a.quote == 0 && (value == "" || strings.ContainsAny(value, " \t\n\r\f")) {
		value = `"` + value + `"`
	}
	return edit{start: a.valueStart, end: a.valueEnd, text: value}
}

// removal deletes attribute a together with one run of spaces around it:
// the spaces after it when there are some, else the spaces before it when
// the tag ends right after (so "<a href=x notrack>" becomes "<a href=x>").
// Before a '/', the spaces before stay, or "<a href=x notrack/>" would turn
// the value into "x/".
func removal(tag string, a attribute) edit {
	start, end := a.nameStart, a.end
	switch {
	case end < len(tag) && isHTMLSpace(tag[end]):
		for end < len(tag) && isHTMLSpace(tag[end]) {
			end++
		}
	case end >= len(tag) || tag[end] == '>':
		for start > 0 && isHTMLSpace(tag[start-1]) {
			start--
		}
	}
	return edit{start: start, end: end}
}

// applyEdits applies edits to tag; overlapping starts are clamped.
func applyEdits(tag string, edits []edit) string {
	if len(edits) == 0 {
		return tag
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b strings.Builder
	b.Grow(len(tag) + 128)
	last := 0
	for _, e := range edits {
		// Only the space runs that removal adds can overlap, and those
		// are spaces: clamping keeps every attribute whole.
		e.start = max(e.start, last)
		if e.end < e.start {
			continue
		}
		b.WriteString(tag[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.WriteString(tag[last:])
	return b.String()
}
