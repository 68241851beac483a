package e2e

import (
	"strings"
	"testing"

	"github.com/carteiro/carteiro/internal/testserver"
)

// Issue 24, D40: test-render drops a declared charset, http-equiv and
// <base>; counts the handlers of tags the parser drops (<body onload> in a
// fragment); and its text, generated or given, holds no URL the HTML may
// not keep.
//
// Not parallel, as TestReactEmailTemplates: it renders React Email (or
// formats with Prettier) in goja within the 2 s limit.
func TestTestRenderHeadTagsDroppedHandlersAndText(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		testRender := func(body map[string]any) (html, text string, rep map[string]any) {
			t.Helper()
			r := templateReq(ts, t, "POST", "/test-render", body)
			testserver.Expect(t, r, 200, "")
			out := r.JSON(t)
			return out["html"].(string), out["text"].(string), out["sanitizeReport"].(map[string]any)
		}

		html, _, rep := testRender(map[string]any{"html": `<!doctype html><html><head><meta charset="utf-7">` +
			`<meta http-equiv="Content-Type" content="text/html; charset=utf-7"><base href="https://evil.example/">` +
			`<meta name="viewport" content="width=device-width"></head><body onload="a()"><p>Olá</p></body></html>`})
		for _, gone := range []string{"charset", "http-equiv", "<base", "onload"} {
			testserver.Must(t, !strings.Contains(strings.ToLower(html), gone), "%q survived: %s", gone, html)
		}
		testserver.Must(t, strings.Contains(html, `name="viewport"`) && rep["eventHandlers"] == 1.0, "document %s, report %v", html, rep)

		// The fragment parser drops <body> and <html> tags, with their
		// handlers: still counted.
		html, text, rep := testRender(map[string]any{
			"html":      `<body onload="a()" onpageshow="b()"><html onclick="c()"><p>Pague <a href="{{link}}">aqui</a></p>`,
			"variables": map[string]any{"link": "javascript:alert(document.cookie)"},
		})
		testserver.Must(t, rep["eventHandlers"] == 3.0 && rep["javascriptHrefs"] == 1.0, "fragment report %v (%s)", rep, html)
		testserver.Must(t, strings.Contains(text, "Pague aqui") && !strings.Contains(strings.ToLower(text), "javascript"), "generated text %q", text)

		// A text template that prints the same URL.
		_, text, _ = testRender(map[string]any{
			"html": `<a href="{{link}}">aqui</a>`, "text": "Pague em {{link}} ou data:text/html;base64,PHNjcmlwdD4= hoje",
			"variables": map[string]any{"link": "JavaScript:alert(1)"},
		})
		testserver.Must(t, text == "Pague em  ou  hoje", "text template %q", text)

		// React Email's own text.
		html, text, _ = testRender(map[string]any{"format": "react",
			"html": `export default function P() { return <p>Pague <a href={"javascript:alert(1)"}>aqui</a></p>; }`})
		for _, s := range []string{html, text} {
			testserver.Must(t, !strings.Contains(strings.ToLower(s), "javascript:"), "react output %q", s)
		}
	})
}
