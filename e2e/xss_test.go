package e2e

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/carteiro/carteiro/internal/render/sanitize"
	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// TestTestRenderNeutralisesXSSCorpus sends every vector of the sanitizer's
// corpus (modelled on the OWASP filter evasion cheat sheet) through
// POST /templates/test-render, as a Handlebars variable inserted raw and
// as React's dangerouslySetInnerHTML, on both stores (D40): the HTML that
// comes back re-parses with nothing executable in it (checked by rules
// written apart from the sanitizer's), and the report counts what was
// removed: the sanitizer's own counts for the rendered document, and never
// zero when the input held something executable.
//
// Not parallel, as TestReactEmailTemplates: it renders React Email (or
// formats with Prettier) in goja within the 2 s limit.
func TestTestRenderNeutralisesXSSCorpus(t *testing.T) {
	raw, err := os.ReadFile("../internal/render/sanitize/testdata/xss_vectors.json")
	testserver.Must(t, err == nil, "corpus: %v", err)
	var vectors []string
	testserver.Must(t, json.Unmarshal(raw, &vectors) == nil && len(vectors) >= 60, "corpus: %d vectors", len(vectors))
	const react = `export default function Evil({ payload }) { return <div dangerouslySetInnerHTML={{ __html: payload }} />; }`

	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		executableInputs := 0
		for _, v := range vectors {
			if len(testutil.ExecutableParts(v)) > 0 {
				executableInputs++
			}
			for _, format := range []string{"html", "react"} {
				body := map[string]any{"html": "<div>{{{payload}}}</div>", "variables": map[string]any{"payload": v}}
				if format == "react" {
					body = map[string]any{"format": "react", "html": react, "variables": map[string]any{"payload": v}}
				}
				r := templateReq(ts, t, "POST", "/test-render", body)
				testserver.Expect(t, r, 200, "")
				var out struct {
					HTML           string
					SanitizeReport sanitize.Report
				}
				testserver.Must(t, json.Unmarshal(r.Body, &out) == nil, "%s %q: response %s", format, v, r.Body)
				if parts := testutil.ExecutableParts(out.HTML); len(parts) > 0 {
					t.Errorf("%s %q: %v survived in %q", format, v, parts, out.HTML)
				}
				rep := out.SanitizeReport
				removed := rep.Scripts + rep.Iframes + rep.JavascriptHrefs + rep.EventHandlers
				if removed == 0 && len(testutil.ExecutableParts("<div>"+v+"</div>")) > 0 {
					t.Errorf("%s %q: something executable went in and the report counts nothing: %+v", format, v, rep)
				}
				if format == "html" {
					_, want := sanitize.HTML("<div>" + v + "</div>")
					if rep != want {
						t.Errorf("%q: report %+v, the sanitizer counts %+v", v, rep, want)
					}
				}
			}
		}
		// The checker is not vacuous: most of the corpus is executable as sent.
		testserver.Must(t, executableInputs >= len(vectors)*3/4, "only %d of %d vectors look executable before sanitizing", executableInputs, len(vectors))
	})
}
