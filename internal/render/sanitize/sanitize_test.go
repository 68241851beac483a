package sanitize

import (
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// xssVectors are modelled on the OWASP XSS filter evasion cheat sheet:
// each must come out with nothing executable.
var xssVectors = []string{
	`<script>alert('XSS')</script>`,
	`<SCRIPT SRC=https://xss.example/xss.js></SCRIPT>`,
	`<IMG SRC="javascript:alert('XSS');">`,
	`<IMG SRC=javascript:alert('XSS')>`,
	`<IMG SRC=JaVaScRiPt:alert('XSS')>`,
	"<IMG SRC=`javascript:alert(\"RSnake says, 'XSS'\")`>",
	`<a onmouseover="alert(document.cookie)">xxs link</a>`,
	`<a onmouseover=alert(document.cookie)>xxs link</a>`,
	`<IMG """><SCRIPT>alert("XSS")</SCRIPT>"\>`,
	`<IMG SRC=javascript:alert(String.fromCharCode(88,83,83))>`,
	`<IMG SRC=# onmouseover="alert('xxs')">`,
	`<IMG SRC= onmouseover="alert('xxs')">`,
	`<IMG onmouseover="alert('xxs')">`,
	`<IMG SRC=/ onerror="alert(String.fromCharCode(88,83,83))"></img>`,
	`<img src=x onerror="&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058&#0000097&#0000108&#0000101&#0000114&#0000116&#0000040&#0000039&#0000088&#0000083&#0000083&#0000039&#0000041">`,
	`<IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;&#97;&#108;&#101;&#114;&#116;&#40;&#39;&#88;&#83;&#83;&#39;&#41;>`,
	`<IMG SRC=&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058&#0000097&#0000108&#0000101&#0000114&#0000116&#0000040&#0000039&#0000088&#0000083&#0000083&#0000039&#0000041>`,
	`<IMG SRC=&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A&#x61&#x6C&#x65&#x72&#x74&#x28&#x27&#x58&#x53&#x53&#x27&#x29>`,
	`<IMG SRC="jav	ascript:alert('XSS');">`,
	`<IMG SRC="jav&#x09;ascript:alert('XSS');">`,
	`<IMG SRC="jav&#x0A;ascript:alert('XSS');">`,
	`<IMG SRC="jav&#x0D;ascript:alert('XSS');">`,
	"<IMG SRC=\"jav\x00ascript:alert('XSS');\">",
	`<IMG SRC=" &#14;  javascript:alert('XSS');">`,
	`<SCRIPT/XSS SRC="http://xss.example/xss.js"></SCRIPT>`,
	`<BODY onload!#$%&()*~+-_.,:;?@[/|\]^` + "`" + `=alert("XSS")>`,
	`<SCRIPT/SRC="http://xss.example/xss.js"></SCRIPT>`,
	`<<SCRIPT>alert("XSS");//\<</SCRIPT>`,
	`<SCRIPT SRC=http://xss.example/xss.js?< B >`,
	`<SCRIPT SRC=//xss.example/.j>`,
	`<IMG SRC="` + "`" + `<javascript:alert>` + "`" + `('XSS')"`,
	`<iframe src=http://xss.example/scriptlet.html <`,
	`\";alert('XSS');//`,
	`</TITLE><SCRIPT>alert("XSS");</SCRIPT>`,
	`<INPUT TYPE="IMAGE" SRC="javascript:alert('XSS');">`,
	`<BODY BACKGROUND="javascript:alert('XSS')">`,
	`<IMG DYNSRC="javascript:alert('XSS')">`,
	`<IMG LOWSRC="javascript:alert('XSS')">`,
	`<STYLE>li {list-style-image: url("javascript:alert('XSS')");}</STYLE><UL><LI>XSS</br>`,
	`<IMG SRC='vbscript:msgbox("XSS")'>`,
	`<svg/onload=alert('XSS')>`,
	`<BODY ONLOAD=alert('XSS')>`,
	`<BGSOUND SRC="javascript:alert('XSS');">`,
	`<LINK REL="stylesheet" HREF="javascript:alert('XSS');">`,
	`<STYLE>@import'http://xss.example/xss.css';</STYLE>`,
	`<META HTTP-EQUIV="Link" Content="<http://xss.example/xss.css>; REL=stylesheet">`,
	`<IMG STYLE="xss:expr/*XSS*/ession(alert('XSS'))">`,
	`<STYLE TYPE="text/javascript">alert('XSS');</STYLE>`,
	`<DIV STYLE="background-image: url(javascript:alert('XSS'))">`,
	`<DIV STYLE="background-image:\0075\0072\006C\0028'\006a\0061\0076\0061\0073\0063\0072\0069\0070\0074\003a\0061\006c\0065\0072\0074\0028.1027\0058.1053\0053\0027\0029'\0029">`,
	`<DIV STYLE="width: expression(alert('XSS'));">`,
	`<META HTTP-EQUIV="refresh" CONTENT="0;url=javascript:alert('XSS');">`,
	`<META HTTP-EQUIV="refresh" CONTENT="0;url=data:text/html base64,PHNjcmlwdD5hbGVydCgnWFNTJyk8L3NjcmlwdD4K">`,
	`<IFRAME SRC="javascript:alert('XSS');"></IFRAME>`,
	`<IFRAME SRC=# onmouseover="alert(document.cookie)"></IFRAME>`,
	`<FRAMESET><FRAME SRC="javascript:alert('XSS');"></FRAMESET>`,
	`<TABLE BACKGROUND="javascript:alert('XSS')">`,
	`<TABLE><TD BACKGROUND="javascript:alert('XSS')">`,
	`<BASE HREF="javascript:alert('XSS');//">`,
	`<OBJECT TYPE="text/x-scriptlet" DATA="http://xss.example/scriptlet.html"></OBJECT>`,
	`<EMBED SRC="data:image/svg+xml;base64,PHN2ZyB4bWxuczpzdmc9Imh0dH A6Ly93d3cudzMub3JnLzIwMDAvc3ZnIiB4bWxucz0iaHR0cDovL3d3dy53My5vcmcv MjAwMC9zdmciIHhtbG5zOnhsaW5rPSJodHRwOi8vd3d3LnczLm9yZy8xOTk5L3hs aW5rIiB2ZXJzaW9uPSIxLjAiIHg9IjAiIHk9IjAiIHdpZHRoPSIxOTQiIGhlaWdodD0iMjAw IiBpZD0ieHNzIj48c2NyaXB0IHR5cGU9InRleHQvZWNtYXNjcmlwdCI+YWxlcnQoIlh TUyIpOzwvc2NyaXB0Pjwvc3ZnPg==" type="image/svg+xml" AllowScriptAccess="always"></EMBED>`,
	`<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>`,
	`<a href="DATA:TEXT/HTML,<script>alert(1)</script>">x</a>`,
	`<a href="javascript&colon;alert(1)">x</a>`,
	`<a href="&#x6A;avascript:alert(1)">x</a>`,
	`<a href="  javascript:alert(1)">x</a>`,
	`<form action="javascript:alert(1)"><input type=submit></form>`,
	`<button formaction="javascript:alert(1)">x</button>`,
	`<svg><script>alert(1)</script></svg>`,
	`<svg><a xlink:href="javascript:alert(1)"><text x="20" y="20">XSS</text></a></svg>`,
	`<svg><animate attributeName="href" values="javascript:alert(1)"/></svg>`,
	`<svg><set attributeName="href" to="javascript:alert(1)"/></svg>`,
	`<math><maction actiontype="statusline" xlink:href="javascript:alert(1)">CLICKME</maction></math>`,
	`<scr<script>ipt>alert(1)</scr</script>ipt>`,
	`<!--[if gte IE 4]><SCRIPT>alert('XSS');</SCRIPT><![endif]-->`,
	`<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>`,
	`<img srcset="x.png 1x, javascript:alert(1) 2x">`,
	`<video poster="javascript:alert(1)"></video>`,
	`<details open ontoggle=alert(1)>`,
	`<a href="vbscript:msgbox(1)">x</a>`,
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
	if len(xssVectors) < 60 {
		t.Fatalf("only %d vectors", len(xssVectors))
	}
	for _, v := range xssVectors {
		out, _ := HTML(v)
		assertInert(t, v, out)
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
		{`<img src=x onerror=a() onload=b()><body onload=c()>`, Report{EventHandlers: 2}},
		{`<div onclick=a onmouseover=b onfocus=c>x</div>`, Report{EventHandlers: 3}},
		{`<p style="color:red">ok</p><a href="https://a.example">ok</a>`, Report{}},
		{`<svg onload=a()><script>b()</script></svg>`, Report{Scripts: 1, EventHandlers: 1}},
		{`<a href="jav&#x09;ascript:a()">x</a>`, Report{JavascriptHrefs: 1}},
		{`<a href="data:text/html,x">x</a><img src="data:image/png;base64,iVBORw0KGgo=">`, Report{JavascriptHrefs: 1}},
		{`<img srcset="a.png 1x, javascript:x 2x">`, Report{JavascriptHrefs: 1}},
		{`<scr<script>ipt>alert(1)</script>`, Report{Scripts: 1}},
		{`<form action="javascript:a"><button formaction="javascript:b" onclick="c">x</button></form>`, Report{JavascriptHrefs: 2, EventHandlers: 1}},
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
	for _, v := range xssVectors[:20] {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, _ := HTML(in)
		assertInert(t, in, out)
	})
}
