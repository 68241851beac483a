package templating

import (
	"context"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/render"
	"github.com/carteiro/carteiro/internal/render/reactemail"
)

// formatter pretty-prints sources: Handlebars HTML with the conservative Go
// formatter, React Email with Prettier running in the engine.
type formatter struct {
	react *reactemail.Formatter
}

func newFormatter(limits render.Limits) formatter {
	return formatter{react: reactemail.NewFormatter(limits)}
}

func (f formatter) format(ctx context.Context, format carteiro.TemplateFormat, src string) (string, error) {
	if format == carteiro.TemplateReact {
		return f.react.Format(ctx, src)
	}
	return formatHandlebars(ctx, src)
}

func (f formatter) close() { f.react.Close() }
