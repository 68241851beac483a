package dashboard

import (
	"net/http"
	"net/http/httptest"
	"path"
	"regexp"
	"strings"
	"testing"
)

// maxPageWeight is issue 26's target: a page with its scripts, styles and
// dictionaries under 200 KB as sent compressed.
const maxPageWeight = 200 << 10

var (
	routeModule  = regexp.MustCompile(`\[/\^[^\n]*?, '([a-z]+)'`)
	staticImport = regexp.MustCompile(`(?:from|import)\s*['"](\.\.?/[^'"]+\.js)['"]`)
	htmlAsset    = regexp.MustCompile(`(?:src|href)="(/dashboard/assets/[^"]+)"`)
)

// Every page of the dashboard, fetched as a browser does with nothing
// cached (the shell, what it links, main.js and the modules it imports,
// the page's module and its imports, the dictionaries of the heaviest
// language), weighs under maxPageWeight as sent gzip-compressed.
func TestEveryPageWeighsUnder200KB(t *testing.T) {
	h, _ := newHandler(t)
	var pages []string
	for _, m := range routeModule.FindAllStringSubmatch(uncompressed(t, h, "js/main.js"), -1) {
		pages = append(pages, m[1])
	}
	pages = append(pages, "notfound")
	if len(pages) < 15 {
		t.Fatalf("found only the pages %v in main.js's routes", pages)
	}
	for _, page := range pages {
		for _, lang := range []string{"en", "pt-BR", "es"} {
			seen := map[string]bool{}
			w := get(h, "/dashboard/"+page, map[string]string{"Accept-Language": lang, "Accept-Encoding": "gzip"})
			total := w.Body.Len()
			for _, m := range htmlAsset.FindAllStringSubmatch(w.Body.String(), -1) {
				total += weigh(t, h, m[1], seen)
			}
			total += weigh(t, h, "/dashboard/assets/js/pages/"+page+".js", seen)
			// A language other than English loads English too, for keys it lacks.
			total += weigh(t, h, "/dashboard/assets/i18n/"+lang+".json", seen)
			total += weigh(t, h, "/dashboard/assets/i18n/en.json", seen)
			if total > maxPageWeight {
				t.Errorf("page %s (%s) weighs %d bytes compressed, over %d", page, lang, total, maxPageWeight)
			}
			if lang == "pt-BR" {
				t.Logf("%-12s %6d bytes compressed (%d files)", page, total, len(seen)+1)
			}
		}
	}
}

// weigh fetches name and, for a module, what it imports, once each, and
// returns the bytes sent.
func weigh(t *testing.T, h *Handler, name string, seen map[string]bool) int {
	if seen[name] {
		return 0
	}
	seen[name] = true
	w := fetchAsset(t, h, name)
	n := w.Body.Len()
	if strings.HasSuffix(name, ".js") {
		src := uncompressed(t, h, strings.TrimPrefix(name, "/dashboard/assets/"))
		for _, m := range staticImport.FindAllStringSubmatch(src, -1) {
			n += weigh(t, h, path.Join(path.Dir(name), m[1]), seen)
		}
	}
	return n
}

func fetchAsset(t *testing.T, h http.Handler, name string) *httptest.ResponseRecorder {
	t.Helper()
	w := get(h, name, map[string]string{"Accept-Encoding": "gzip"})
	if w.Code != http.StatusOK {
		t.Fatalf("%s: status %d", name, w.Code)
	}
	return w
}

func uncompressed(t *testing.T, h *Handler, rel string) string {
	t.Helper()
	f, ok := h.assets.byName[rel]
	if !ok {
		t.Fatalf("no asset %s", rel)
	}
	return string(f.body)
}
