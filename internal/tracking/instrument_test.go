package tracking

import (
	"strings"
	"testing"
)

// TestInstrumentRewritesLinks compares whole outputs: every byte but the
// replaced href values must be as in the input (tokens are deterministic, so
// the expected output is exact).
func TestInstrumentRewritesLinks(t *testing.T) {
	t.Parallel()
	s := newSigner(t, testSecret)
	c := func(destination string) string { return clickURL(s, destination) }
	cases := []struct {
		name, in, want string
		skip           []string
	}{
		{
			name: "double quotes",
			in:   `<p>Hi <a href="https://a.example/x">x</a>!</p>`,
			want: `<p>Hi <a href="` + c("https://a.example/x") + `">x</a>!</p>`,
		},
		{
			name: "single quotes",
			in:   `<a href='https://a.example/x' >x</a>`,
			want: `<a href='` + c("https://a.example/x") + `' >x</a>`,
		},
		{
			name: "unquoted",
			in:   `<a href=https://a.example/x>x</a><a href=http://b.example/ title=t>y</a>`,
			want: `<a href=` + c("https://a.example/x") + `>x</a><a href=` + c("http://b.example/") + ` title=t>y</a>`,
		},
		{
			name: "unquoted value ending in a slash",
			in:   `<a href=https://a.example/>x</a>`,
			want: `<a href=` + c("https://a.example/") + `>x</a>`,
		},
		{
			name: "spaces around the equals sign",
			in:   "<a href =\n \"https://a.example/\">x</a>",
			want: "<a href =\n \"" + c("https://a.example/") + `">x</a>`,
		},
		{
			name: "uppercase tag, attribute and scheme",
			in:   `<A CLASS="b" HREF="HTTPS://A.example/X">x</A>`,
			want: `<A CLASS="b" HREF="` + c("HTTPS://A.example/X") + `">x</A>`,
		},
		{
			name: "entities are decoded as a browser decodes attributes",
			// &copy= stays literal in an attribute (no semicolon, then '='),
			// &amp; and &#x2F; are decoded.
			in:   `<a href="https://a.example/?a=1&amp;b=2&copy=3&#x2F;">x</a>`,
			want: `<a href="` + c("https://a.example/?a=1&b=2&copy=3/") + `">x</a>`,
		},
		{
			name: "spaces and newlines in the href are what a browser drops",
			in:   "<a href=\" https://a.example/lo\nng \">x</a>",
			want: `<a href="` + c("https://a.example/long") + `">x</a>`,
		},
		{
			name: "other attributes untouched",
			in:   `<a class="btn" style='color:red;' href="https://a.example" target=_blank data-x>go</a>`,
			want: `<a class="btn" style='color:red;' href="` + c("https://a.example") + `" target=_blank data-x>go</a>`,
		},
		{
			name: "area",
			in:   `<map name=m><area shape="rect" coords="0,0,1,1" href="https://a.example/area"></map>`,
			want: `<map name=m><area shape="rect" coords="0,0,1,1" href="` + c("https://a.example/area") + `"></map>`,
		},
		{
			name: "self-closing",
			in:   `<a href="https://a.example/"/>`,
			want: `<a href="` + c("https://a.example/") + `"/>`,
		},
		{
			name: "only the first of duplicate hrefs, the one browsers follow",
			in:   `<a href="https://a.example/1" HREF="https://a.example/2">x</a>`,
			want: `<a href="` + c("https://a.example/1") + `" HREF="https://a.example/2">x</a>`,
		},
		{
			name: "multiple links with untrackable ones in between",
			in: `<a href="https://a.example/1">1</a>` +
				`<a href="mailto:a@example.com">m</a><a href="tel:+351210000000">t</a>` +
				`<a href="sms:+351910000000">s</a><a href="#top">#</a><a href="cid:logo@x">c</a>` +
				`<a href="data:text/html,hi">d</a><a href="javascript:alert(1)">j</a>` +
				`<a href="java&#x09;script:alert(1)">j2</a><a href="/relative">r</a><a href="page.html">p</a>` +
				`<a href="//proto.example/relative">pr</a><a href="ftp://f.example/">f</a>` +
				`<a href="https:no-slashes.example">o</a><a href="">e</a><a href>n</a><a name="x">a</a>` +
				`<a href="http://a.example/2">2</a>`,
			want: `<a href="` + c("https://a.example/1") + `">1</a>` +
				`<a href="mailto:a@example.com">m</a><a href="tel:+351210000000">t</a>` +
				`<a href="sms:+351910000000">s</a><a href="#top">#</a><a href="cid:logo@x">c</a>` +
				`<a href="data:text/html,hi">d</a><a href="javascript:alert(1)">j</a>` +
				`<a href="java&#x09;script:alert(1)">j2</a><a href="/relative">r</a><a href="page.html">p</a>` +
				`<a href="//proto.example/relative">pr</a><a href="ftp://f.example/">f</a>` +
				`<a href="https:no-slashes.example">o</a><a href="">e</a><a href>n</a><a name="x">a</a>` +
				`<a href="` + c("http://a.example/2") + `">2</a>`,
		},
		{
			name: "skip list (unsubscribe, D43)",
			in:   `<a href="https://t.example/u/abc">unsubscribe</a> <a href="https://a.example/">a</a>`,
			want: `<a href="https://t.example/u/abc">unsubscribe</a> <a href="` + c("https://a.example/") + `">a</a>`,
			skip: []string{"", "https://t.example/u/"},
		},
		{
			name: "already tracked links are not wrapped again",
			in:   `<a href="https://t.example/t/c/abc.def">x</a>`,
			want: `<a href="https://t.example/t/c/abc.def">x</a>`,
		},
		{
			name: "links inside comments, scripts, styles and textareas are text",
			in: `<!-- <a href="https://a.example/c"> --><script>s='<a href="https://a.example/s">'</script>` +
				`<style>/* <a href="https://a.example/y"> */</style><textarea><a href="https://a.example/t"></textarea>`,
			want: `<!-- <a href="https://a.example/c"> --><script>s='<a href="https://a.example/s">'</script>` +
				`<style>/* <a href="https://a.example/y"> */</style><textarea><a href="https://a.example/t"></textarea>`,
		},
		{
			name: "not a link tag",
			in:   `<link href="https://a.example/css"><abbr href="https://a.example/">x</abbr><base href="https://a.example/">`,
			want: `<link href="https://a.example/css"><abbr href="https://a.example/">x</abbr><base href="https://a.example/">`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Instrument(tc.in, testEmailID, testBase, s, Options{Click: true, Skip: tc.skip})
			if got != tc.want {
				t.Errorf("Instrument(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestInstrumentNoTrackAttribute(t *testing.T) {
	t.Parallel()
	s := newSigner(t, testSecret)
	cases := []struct{ in, want string }{
		{`<a data-carteiro-notrack href="https://a.example/">x</a>`, `<a href="https://a.example/">x</a>`},
		{`<a href=https://a.example/ data-carteiro-notrack>x</a>`, `<a href=https://a.example/>x</a>`},
		{`<a href="https://a.example/" DATA-CARTEIRO-NOTRACK="">x</a>`, `<a href="https://a.example/">x</a>`},
		// Before "/>", the space stays or "/" would join the unquoted value.
		{`<a href=https://a.example/x data-carteiro-notrack/>`, `<a href=https://a.example/x />`},
		{"<a\n  data-carteiro-notrack='1'\n  href='https://a.example/'>x</a>", "<a\n  href='https://a.example/'>x</a>"},
		// Both removed; a harmless space stays.
		{`<a data-carteiro-notrack data-carteiro-notrack>x</a>`, `<a >x</a>`},
		{`<area data-carteiro-notrack href="https://a.example/">`, `<area href="https://a.example/">`},
		// The marker only means something on links.
		{`<p data-carteiro-notrack>x</p>`, `<p data-carteiro-notrack>x</p>`},
	}
	for _, tc := range cases {
		for _, opts := range []Options{{Click: true}, {}} {
			if got := Instrument(tc.in, testEmailID, testBase, s, opts); got != tc.want {
				t.Errorf("Instrument(%q, %+v)\n got %q\nwant %q", tc.in, opts, got, tc.want)
			}
		}
	}
}

func TestInstrumentOpenPixel(t *testing.T) {
	t.Parallel()
	s := newSigner(t, testSecret)
	p := expectedPixel(s)
	cases := []struct{ name, in, want string }{
		{"before </body>", "<html><body><p>x</p></body></html>", "<html><body><p>x</p>" + p + "</body></html>"},
		{"uppercase end tag", "<BODY>x</BODY >\r\n", "<BODY>x" + p + "</BODY >\r\n"},
		{"no body tag", "<p>x</p>", "<p>x</p>" + p},
		{"empty document", "", p},
		{"a </body> in a comment does not count", "<body>x<!-- </body> -->y", "<body>x<!-- </body> -->y" + p},
		{"the last </body> wins, once", "<body>a</body>b</body>c", "<body>a</body>b" + p + "</body>c"},
	}
	for _, tc := range cases {
		got := Instrument(tc.in, testEmailID, testBase, s, Options{Open: true})
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
		if n := strings.Count(got, "/t/o/"); n != 1 {
			t.Errorf("%s: %d pixels, want 1", tc.name, n)
		}
	}
	if got := Instrument("<body>x</body>", testEmailID, testBase, s, Options{Click: true}); got != "<body>x</body>" {
		t.Errorf("Open off added something: %q", got)
	}
}

func TestInstrumentPixelTokenAndBaseURL(t *testing.T) {
	t.Parallel()
	s := newSigner(t, testSecret)
	// A trailing slash on the base URL must not double the slash.
	got := Instrument(`<a href="https://a.example/">x</a>`, testEmailID, testBase+"/", s, Options{Open: true, Click: true})
	const pixelPrefix = `<img src="` + testBase + `/t/o/`
	i := strings.Index(got, pixelPrefix)
	if i < 0 {
		t.Fatalf("no pixel in %q", got)
	}
	token, _, _ := strings.Cut(got[i+len(pixelPrefix):], `"`)
	if id, ok := ParseOpen(s, token); !ok || id != testEmailID {
		t.Errorf("pixel token %q parses as %q, %v", token, id, ok)
	}
	if !strings.Contains(got, `href="`+clickURL(s, "https://a.example/")+`"`) {
		t.Errorf("link not rewritten under the trimmed base: %q", got)
	}
	// A base URL with characters special in HTML is escaped in attributes.
	odd := Instrument(`<a href=https://a.example/>x</a>`, testEmailID, `https://t.example/a&b c`, s, Options{Open: true, Click: true})
	if !strings.Contains(odd, `<a href="https://t.example/a&amp;b c/t/c/`) || !strings.Contains(odd, `src="https://t.example/a&amp;b c/t/o/`) {
		t.Errorf("special characters of the base URL not escaped/quoted: %q", odd)
	}
}

// TestInstrumentRealisticEmailKeepsEveryOtherByte instruments a typical
// email (CRLF, conditional comments, styles, tables, an unsubscribe link)
// and checks that undoing the known replacements gives the input back.
func TestInstrumentRealisticEmailKeepsEveryOtherByte(t *testing.T) {
	t.Parallel()
	s := newSigner(t, testSecret)
	in := strings.ReplaceAll(`<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml"><head><meta charset="utf-8"/>
<title>Olá &amp; bem-vindo</title>
<style type="text/css">a { color: #0a7; } /* <a href="https://ignored.example"> */</style>
<!--[if mso]><xml><o:OfficeDocumentSettings><o:AllowPNG/></o:OfficeDocumentSettings></xml><![endif]-->
</head>
<body style="margin:0">
<table role="presentation" cellpadding=0 cellspacing=0><tr><td align=center>
  <img src="cid:logo@carteiro" alt="Logo" width=120 />
  <p>Olá, Maria! Your order <b>#123</b> has shipped &mdash; track it
  <a href="https://shop.example/orders/123?utm_source=email&amp;utm_medium=transactional" class=btn>here</a>.</p>
  <p><a href='mailto:help@shop.example'>help@shop.example</a> &middot; <a href="tel:+351210000000">call</a></p>
  <p><A HREF=HTTP://Shop.Example/Promo>Promo</A> <a data-carteiro-notrack href="https://shop.example/private">private</a></p>
  <p style="font-size:11px"><a href="https://t.example/u/tok123">Unsubscribe</a></p>
</td></tr></table>
</body>
</html>
`, "\n", "\r\n")
	got := Instrument(in, testEmailID, testBase, s, Options{Open: true, Click: true, Skip: []string{testBase + "/u/"}})

	undo := strings.NewReplacer(
		clickURL(s, "https://shop.example/orders/123?utm_source=email&utm_medium=transactional"),
		"https://shop.example/orders/123?utm_source=email&amp;utm_medium=transactional",
		clickURL(s, "HTTP://Shop.Example/Promo"), "HTTP://Shop.Example/Promo",
		`<a href="https://shop.example/private">`, `<a data-carteiro-notrack href="https://shop.example/private">`,
		expectedPixel(s), "",
	)
	if back := undo.Replace(got); back != in {
		t.Fatalf("undoing the replacements does not give the input back\n got %q\nwant %q", back, in)
	}
	if n := strings.Count(got, testBase+"/t/c/"); n != 2 {
		t.Errorf("%d rewritten links, want 2:\n%s", n, got)
	}
	if !strings.Contains(got, expectedPixel(s)+"</body>") {
		t.Errorf("pixel not just before </body>:\n%s", got)
	}
}
