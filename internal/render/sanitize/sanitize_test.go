package sanitize

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/carteiro/carteiro/internal/testutil"
)

// xssVectors loads testdata/xss_vectors.json, vectors modelled on the
// OWASP XSS filter evasion cheat sheet: each must come out with nothing
// executable. The end-to-end tests send the same file through
// POST /templates/test-render.
func xssVectors(t testing.TB) []string {
	t.Helper()
	raw, err := os.ReadFile("testdata/xss_vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors []string
	if err := json.Unmarshal(raw, &vectors); err != nil {
		t.Fatal(err)
	}
	return vectors
}

// assertInert re-parses out and fails on anything executable.
func assertInert(t *testing.T, in, out string) {
	t.Helper()
	ctx := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
	nodes, err := html.ParseFragment(strings.NewReader(out), ctx)
	if err != nil {
		t.Fatalf("%q: output does not parse: %v", in, err)
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch strings.ToLower(n.Data) {
			case "script", "iframe", "frame", "frameset", "object", "embed", "applet", "base":
				t.Errorf("%q: <%s> survived in %q", in, n.Data, out)
			}
			for _, a := range n.Attr {
				key := strings.ToLower(a.Key)
				if strings.HasPrefix(key, "on") {
					t.Errorf("%q: attribute %s survived in %q", in, a.Key, out)
				}
				if urlAttributes[key] && dangerousURLs(key, a.Val) {
					t.Errorf("%q: URL %s=%q survived in %q", in, a.Key, a.Val, out)
				}
				if key == "style" && dangerousStyle(a.Val) {
					t.Errorf("%q: style %q survived", in, a.Val)
				}
			}
			if strings.EqualFold(n.Data, "style") && dangerousStyle(textOf(n)) {
				t.Errorf("%q: <style> %q survived", in, textOf(n))
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range nodes {
		walk(n)
	}
	// As text, too: no script or iframe start tag anywhere in the markup.
	if m := rawTag.FindString(out); m != "" {
		t.Errorf("%q: %s survived as markup in %q", in, m, out)
	}
}

var rawTag = regexp.MustCompile(`(?i)<(script|iframe)[\s/>]`)

func TestXSSVectors(t *testing.T) {
	vectors := xssVectors(t)
	if len(vectors) < 60 {
		t.Fatalf("only %d vectors", len(vectors))
	}
	for _, v := range vectors {
		out, _ := HTML(v)
		assertInert(t, v, out)
		// A second opinion, written apart from this package's rules.
		if parts := testutil.ExecutableParts(out); len(parts) > 0 {
			t.Errorf("%q: %v survived in %q", v, parts, out)
		}
		// Sanitizing is idempotent: a second pass finds nothing more.
		again, rep := HTML(out)
		if rep != (Report{}) {
			t.Errorf("%q: second pass removed %+v from %q", v, rep, out)
		}
		if again != out {
			t.Errorf("%q: second pass changed %q into %q", v, out, again)
		}
	}
}

func TestCounts(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Report
	}{
		{`<script>a</script><script src=x></script>`, Report{Scripts: 2}},
		{`<iframe src=x></iframe><frameset><frame src=y></frameset>`, Report{Iframes: 1}},
		{`<a href="javascript:x()">a</a><a href="JAVASCRIPT:y">b</a><img src="vbscript:z">`, Report{JavascriptHrefs: 3}},
		// A <body> or <html> tag the parser drops in a fragment still
		// wrote its handlers (issue 24, D40).
		{`<img src=x onerror=a() onload=b()><body onload=c()>`, Report{EventHandlers: 3}},
		{`<p>x</p><html onclick=a()><body onload=b() onpageshow=c()>`, Report{EventHandlers: 3}},
		{`<!doctype html><html><body onload=a()><p>x</p><body onload=b()></body></html>`, Report{EventHandlers: 2}},
		{`<textarea><b onclick=a()></textarea><script>"<i onclick=b()>"</script>`, Report{Scripts: 1}},
		{`<div onclick=a onmouseover=b onfocus=c>x</div>`, Report{EventHandlers: 3}},
		{`<p style="color:red">ok</p><a href="https://a.example">ok</a>`, Report{}},
		{`<svg onload=a()><script>b()</script></svg>`, Report{Scripts: 1, EventHandlers: 1}},
		{`<a href="jav&#x09;ascript:a()">x</a>`, Report{JavascriptHrefs: 1}},
		{`<a href="data:text/html,x">x</a><img src="data:image/png;base64,iVBORw0KGgo=">`, Report{JavascriptHrefs: 1}},
		{`<img srcset="a.png 1x, javascript:x 2x">`, Report{JavascriptHrefs: 1}},
		{`<scr<script>ipt>alert(1)</script>`, Report{Scripts: 1}},
		{`<form action="javascript:a"><button formaction="javascript:b" onclick="c">x</button></form>`, Report{JavascriptHrefs: 2, EventHandlers: 1}},
		// Elements removed whole count as what they are or carry.
		{`<object data="https://x.example/a.swf"></object><embed src="a.svg"><applet code="A"></applet>`, Report{Iframes: 3}},
		{`<object data="javascript:a()"><script>b()</script></object>`, Report{Iframes: 1, Scripts: 1, JavascriptHrefs: 1}},
		{`<base href="javascript:a()//"><noscript><p onclick="b()">x</p></noscript>`, Report{JavascriptHrefs: 1}},
		{`<meta http-equiv="refresh" content="0;url=javascript:a()"><meta http-equiv="refresh" content="0;url=data:text/html;base64,PHNjcmlwdD4=">`, Report{JavascriptHrefs: 2}},
		{`<!--[if gte IE 4]><SCRIPT>a()</SCRIPT><script>b()</script><![endif]--><!--[if mso]><table></table><![endif]-->`, Report{Scripts: 2}},
		// CSS counts by what it would run; CSS refused for its form only, not at all.
		{`<div style="width: expression(a())">x</div><p style="background:url(javascript:b())">y</p>`, Report{Scripts: 1, JavascriptHrefs: 1}},
		{`<style>li {list-style-image: url("javascript:a()")}</style><style>@import url(https://x.example/a.css);</style>`, Report{JavascriptHrefs: 1}},
	} {
		_, got := HTML(c.in)
		if got != c.want {
			t.Errorf("%q: %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestEmailHTMLSurvives(t *testing.T) {
	doc := `<!DOCTYPE html><html><head><meta charset="utf-8"><style>.btn{background:#0a0;color:#fff}</style></head>` +
		`<body style="margin:0"><!--[if mso]><table><tr><td><![endif]-->` +
		`<table role="presentation" width="600" cellpadding="0" cellspacing="0" border="0" align="center" bgcolor="#ffffff">` +
		`<tr><td class="btn" style="padding:16px;font-family:Arial"><img src="cid:logo" alt="Logo" width="120">` +
		`<img src="https://cdn.example/banner.png" alt=""><img src="data:image/png;base64,iVBORw0KGgo=">` +
		`<p>Olá <b>Ana</b> &amp; equipe</p><a href="https://shop.example/o/42?x=1&amp;y=2" target="_blank">Ver pedido</a> ` +
		`<a href="mailto:ajuda@shop.example">ajuda</a> <a href="tel:+5511999999999">ligar</a></td></tr></table>` +
		`<!--[if mso]></td></tr></table><![endif]--></body></html>`
	out, rep := HTML(doc)
	if rep != (Report{}) {
		t.Fatalf("benign email reported %+v", rep)
	}
	for _, must := range []string{`src="cid:logo"`, `href="mailto:ajuda@shop.example"`, `href="tel:+5511999999999"`, `style="padding:16px;font-family:Arial"`,
		`<style>.btn{background:#0a0;color:#fff}</style>`, `bgcolor="#ffffff"`, `cellpadding="0"`, `src="data:image/png;base64,iVBORw0KGgo="`,
		`href="https://shop.example/o/42?x=1&amp;y=2"`, `target="_blank"`, "<!--[if mso]>", "<b>Ana</b> &amp; equipe", "<!DOCTYPE html>"} {
		if !strings.Contains(out, must) {
			t.Errorf("lost %q:\n%s", must, out)
		}
	}
	frag, _ := HTML(`<p>Hi</p><table><tr><td>x</td></tr></table>`)
	if frag != `<p>Hi</p><table><tbody><tr><td>x</td></tr></tbody></table>` {
		t.Errorf("fragment became %q", frag)
	}
}

func FuzzSanitize(f *testing.F) {
	for _, v := range xssVectors(f)[:20] {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, _ := HTML(in)
		assertInert(t, in, out)
	})
}

// Issue 24 (D40): a declared charset, http-equiv and <base> leave a
// document; the rest of its head stays.
func TestHeadTagsRemoved(t *testing.T) {
	doc := `<!doctype html><html><head><meta charset="utf-7"><meta http-equiv="Content-Type" content="text/html; charset=utf-7">` +
		`<base href="https://x.example/"><meta name="viewport" content="width=device-width"><title>t</title></head><body><p>x</p></body></html>`
	out, _ := HTML(doc)
	for _, gone := range []string{"charset", "http-equiv", "<base"} {
		if strings.Contains(strings.ToLower(out), gone) {
			t.Errorf("%q survived: %s", gone, out)
		}
	}
	if !strings.Contains(out, `name="viewport"`) || !strings.Contains(out, "<title>t</title>") {
		t.Errorf("head lost: %s", out)
	}
	if out, _ := HTML(`<meta charset="utf-7"><p>x</p>`); strings.Contains(out, "charset") {
		t.Errorf("fragment charset survived: %s", out)
	}
}

// Issue 24 (D40): the text part keeps no URL the HTML may not keep.
func TestTextWithoutRemovedURLs(t *testing.T) {
	for in, want := range map[string]string{
		"Pay (javascript:alert(1)) now":           "Pay ( now",
		"x [JavaScript: steal()] y":               "x [ steal()] y",
		"see data:text/html;base64,PHN> and more": "see > and more",
		"logo data:image/png;base64,iVBO":         "logo data:image/png;base64,iVBO",
		"Update data: see https://a.example/?q=1": "Update data: see https://a.example/?q=1",
		"mailto:a@b.example vbscript:x":           "mailto:a@b.example ",
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
	for u, want := range map[string]bool{"https://a.example": true, "mailto:a@b.example": true, "/path?x=a:b": true,
		"javascript:a()": false, " java\tscript:a": false, "data:text/html,x": false, "cid:logo": false} {
		if SafeLink(u) != want {
			t.Errorf("SafeLink(%q) = %v", u, !want)
		}
	}
}
