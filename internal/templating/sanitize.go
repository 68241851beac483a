package templating

import (
	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/render/sanitize"
)

// Sanitize removes what could run from a rendered template (D40): from
// the HTML, and from the text part the URLs the HTML may not keep (a text
// template's or React Email's own text can copy a link's href).
func (e *Engine) Sanitize(out carteiro.RenderedTemplate) (carteiro.RenderedTemplate, carteiro.SanitizeReport) {
	html, r := sanitize.HTML(out.HTML)
	out.HTML, out.Text = html, sanitize.Text(out.Text)
	return out, carteiro.SanitizeReport{Scripts: r.Scripts, Iframes: r.Iframes, JavascriptHrefs: r.JavascriptHrefs, EventHandlers: r.EventHandlers}
}
