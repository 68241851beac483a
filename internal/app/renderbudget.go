package app

import (
	"fmt"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/render"
)

// Rendered output bounds (D60): rendering a template must not turn a small
// request into a large write. The per-part bound equals the engines' own
// output limit (render.DefaultLimits, D37/D61), and is checked again here
// because a text generated from the HTML is not the engine's output.
const (
	MaxRenderedPartBytes  = 5 << 20  // an email's rendered html, and its text
	MaxBatchRenderedBytes = 40 << 20 // html and text of all a batch's rendered items
)

// outputErr is D61's answer to output over a limit: 422
// TEMPLATE_RENDER_ERROR with reason output.
func outputErr(reason string) error {
	return templateErr(&render.RenderError{Reason: reason, Limit: "output"})
}

// checkRenderedParts bounds one rendered email (D60): html and text, the
// text generated from the html included, at most MaxRenderedPartBytes each.
func checkRenderedParts(out carteiro.RenderedTemplate) error {
	for _, part := range []struct {
		name string
		size int
	}{{"HTML", len(out.HTML)}, {"text", len(out.Text)}} {
		if part.size > MaxRenderedPartBytes {
			return outputErr(fmt.Sprintf("the rendered %s is %d bytes, over %d", part.name, part.size, MaxRenderedPartBytes))
		}
	}
	return nil
}

// renderBudget is what a batch may still render (D60). An item that would
// pass it fails alone; its output is dropped, so a later, smaller item may
// still fit and the bytes kept for the batch's transaction stay bounded.
type renderBudget struct {
	left int
}

func newRenderBudget() *renderBudget { return &renderBudget{left: MaxBatchRenderedBytes} }

// take charges the rendered html and text of e, or refuses it.
func (b *renderBudget) take(e *carteiro.Email) error {
	n := len(e.HTML) + len(e.Text)
	if n > b.left {
		return outputErr(fmt.Sprintf("the batch's rendered html and text pass %d bytes", MaxBatchRenderedBytes))
	}
	b.left -= n
	return nil
}
