package templating

import (
	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/render/sanitize"
)

// Sanitize removes what could run from rendered HTML (D40).
func (e *Engine) Sanitize(html string) (string, carteiro.SanitizeReport) {
	out, r := sanitize.HTML(html)
	return out, carteiro.SanitizeReport{Scripts: r.Scripts, Iframes: r.Iframes, JavascriptHrefs: r.JavascriptHrefs, EventHandlers: r.EventHandlers}
}
