package tracking

import (
	"strings"
	"testing"

	xhtml "golang.org/x/net/html"
)

// fuzzSeeds are documents exercising the awkward corners of HTML syntax.
var fuzzSeeds = []string{
	"",
	"<a href=https://a.example/>x</a>",
	`<a href="https://a.example/?a=1&amp;b=2">x</a></body>`,
	`<A HREF='HTTP://A.EXAMPLE' data-carteiro-notrack/>`,
	`<a href = "https://a.example" href="https://b.example">`,
	`<a =href="https://a.example" /href=https://b.example/ x=>`,
	`<a href="https://a.example`,
	`<a href=https://a.example`,
	`<a href`,
	`<!-- <a href="https://a.example"> `,
	`<script><a href="https://a.example"></script><a href="https://b.example">`,
	"<a\fhref\f=\fhttps://a.example\f>\r\n</BODY>\x00",
	`<area href="https://a.example/" data-carteiro-notrack="1"><a href="mailto:x@y">`,
	`<a href="https://t.example/u/1">u</a><body><a href="  https://a.example/\n ">`,
	"<plaintext><a href=https://a.example/>",
	`<a href="https://a.example/é?q=ü&#x20;">`,
}

// FuzzInstrument: never panics; with nothing to do the document comes back
// unchanged; with the pixel only, exactly the pixel is added; with click
// tracking, every text byte of the input survives in order and every
// rewritten href verifies as a click token for an http(s) destination.
func FuzzInstrument(f *testing.F) {
	for _, seed := range fuzzSeeds {
		f.Add(seed)
	}
	s := newSigner(f, testSecret)
	pixel := expectedPixel(s)
	f.Fuzz(func(t *testing.T, doc string) {
		if strings.Contains(doc, "t.example/t/") {
			t.Skip("input already holds tracking URLs of the test base")
		}
		marked := strings.Contains(strings.ToLower(doc), NoTrackAttribute)

		if got := Instrument(doc, testEmailID, testBase, s, Options{}); !marked && got != doc {
			t.Fatalf("with no options the document changed:\n in %q\nout %q", doc, got)
		}

		withPixel := Instrument(doc, testEmailID, testBase, s, Options{Open: true})
		if strings.Count(withPixel, pixel) != strings.Count(doc, pixel)+1 {
			t.Fatalf("the pixel is not added exactly once: %q", withPixel)
		}
		if !marked {
			i := strings.LastIndex(withPixel, pixel)
			if back := withPixel[:i] + withPixel[i+len(pixel):]; back != doc {
				t.Fatalf("pixel-only instrumentation changed more than the pixel:\n in %q\nout %q", doc, withPixel)
			}
		}

		out := Instrument(doc, testEmailID, testBase, s, Options{Open: true, Click: true, Skip: []string{"https://t.example/u/"}})
		rest := out
		for _, text := range textChunks(doc) {
			i := strings.Index(rest, text)
			if i < 0 {
				t.Fatalf("text %q of the input is missing from the output (in order):\n in %q\nout %q", text, doc, out)
			}
			rest = rest[i+len(text):]
		}
		rewritten := 0
		for _, href := range linkHrefs(out) {
			token, ok := strings.CutPrefix(href, testBase+"/t/c/")
			if !ok {
				continue
			}
			rewritten++
			id, destination, ok := ParseClick(s, token)
			if !ok || id != testEmailID {
				t.Fatalf("rewritten href %q does not verify:\n in %q\nout %q", href, doc, out)
			}
			if !validDestination(destination) {
				t.Fatalf("rewritten href %q leads to %q", href, destination)
			}
		}
		if want := trackableLinks(doc); rewritten != want {
			t.Fatalf("%d links rewritten, want %d:\n in %q\nout %q", rewritten, want, doc, out)
		}
	})
}

// FuzzScanAttributes checks that scanAttributes finds the attributes the
// tokenizer reports, in order, with the same names and values.
func FuzzScanAttributes(f *testing.F) {
	for _, seed := range fuzzSeeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		z := xhtml.NewTokenizer(strings.NewReader(doc))
		for {
			tt := z.Next()
			if tt == xhtml.ErrorToken {
				return
			}
			if tt != xhtml.StartTagToken && tt != xhtml.SelfClosingTagToken {
				continue
			}
			tag := string(z.Raw()) // copied before TagAttr edits the buffer in place
			compareWithTokenizer(t, tag, z)
		}
	})
}

// compareWithTokenizer fails t when scanAttributes(tag) disagrees with the
// tokenizer's attributes for that tag.
func compareWithTokenizer(t *testing.T, tag string, z *xhtml.Tokenizer) {
	t.Helper()
	type pair struct{ name, value string }
	var want []pair
	if _, hasAttr := z.TagName(); hasAttr {
		for more := true; more; {
			var k, v []byte
			k, v, more = z.TagAttr()
			want = append(want, pair{string(k), string(v)})
		}
	}
	var got []pair
	seen := map[string]bool{}
	for _, a := range scanAttributes(tag) {
		if a.nameStart > a.nameEnd || a.nameEnd > a.valueStart || a.valueStart > a.valueEnd || a.valueEnd > a.end || a.end > len(tag) {
			t.Fatalf("tag %q: inconsistent offsets %+v", tag, a)
		}
		if a.quote != 0 && tag[a.valueStart-1] != a.quote {
			t.Fatalf("tag %q: quoted value %+v does not follow its quote", tag, a)
		}
		name := a.name(tag)
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		// The tokenizer reports NUL in names as U+FFFD (after deduplication).
		got = append(got, pair{strings.ReplaceAll(name, "\x00", "\uFFFD"), tag[a.valueStart:a.valueEnd]})
	}
	if len(got) != len(want) {
		t.Fatalf("tag %q: scanned %q, tokenizer has %q", tag, got, want)
	}
	for i := range got {
		if got[i].name != want[i].name {
			t.Fatalf("tag %q: attribute %d named %q, tokenizer says %q", tag, i, got[i].name, want[i].name)
		}
		// The tokenizer decodes entities and CRLF and replaces NUL;
		// compare values only where none of that applies.
		if !strings.ContainsAny(got[i].value, "&\r\x00") && got[i].value != want[i].value {
			t.Fatalf("tag %q: attribute %q value %q, tokenizer says %q", tag, got[i].name, got[i].value, want[i].value)
		}
	}
}

// textChunks returns the raw bytes of the text tokens of doc, in order.
func textChunks(doc string) []string {
	var chunks []string
	z := xhtml.NewTokenizer(strings.NewReader(doc))
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return chunks
		case xhtml.TextToken:
			chunks = append(chunks, string(z.Raw()))
		}
	}
}

// trackableLinks counts the <a> and <area> tags of doc, as the tokenizer
// sees them, whose first href Instrument must rewrite (skipping the test's
// unsubscribe prefix and marked links).
func trackableLinks(doc string) int {
	n := 0
	z := xhtml.NewTokenizer(strings.NewReader(doc))
	for {
		tt := z.Next()
		if tt == xhtml.ErrorToken {
			return n
		}
		if tt != xhtml.StartTagToken && tt != xhtml.SelfClosingTagToken {
			continue
		}
		name, more := z.TagName()
		if string(name) != "a" && string(name) != "area" {
			continue
		}
		href, hasHref, marked := "", false, false
		for more {
			var k, v []byte
			k, v, more = z.TagAttr()
			switch string(k) {
			case "href":
				href, hasHref = string(v), true
			case NoTrackAttribute:
				marked = true
			}
		}
		destination := normalizeHref(href)
		if hasHref && !marked && validDestination(destination) && !strings.HasPrefix(destination, "https://t.example/u/") {
			n++
		}
	}
}

// linkHrefs returns the decoded hrefs of the <a> and <area> tags of doc.
func linkHrefs(doc string) []string {
	var hrefs []string
	z := xhtml.NewTokenizer(strings.NewReader(doc))
	for {
		tt := z.Next()
		if tt == xhtml.ErrorToken {
			return hrefs
		}
		if tt != xhtml.StartTagToken && tt != xhtml.SelfClosingTagToken {
			continue
		}
		name, more := z.TagName()
		if string(name) != "a" && string(name) != "area" {
			continue
		}
		for more {
			var k, v []byte
			k, v, more = z.TagAttr()
			if string(k) == "href" {
				hrefs = append(hrefs, string(v))
			}
		}
	}
}
