package app

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/render"
	"github.com/carteiro/carteiro/internal/store"
)

// TemplateEngine checks, renders, formats and sanitizes template sources
// (internal/templating implements it with the Handlebars and React Email
// engines). Errors are *render.SyntaxError or *render.RenderError.
type TemplateEngine interface {
	Check(ctx context.Context, src carteiro.TemplateSource) error
	Render(ctx context.Context, src carteiro.TemplateSource, vars *carteiro.JSONObject) (carteiro.RenderedTemplate, error)
	Format(ctx context.Context, f carteiro.TemplateFormat, src string) (string, error)
	Sanitize(out carteiro.RenderedTemplate) (carteiro.RenderedTemplate, carteiro.SanitizeReport)
}

// TemplateInput is POST /templates and PATCH /templates/:id after decoding;
// nil means absent, and the *Set flags tell an explicit null (clear) from
// an absent field.
type TemplateInput struct {
	Name           *string
	Subject        *string
	SubjectSet     bool
	HTML           *string
	Text           *string
	TextSet        bool
	Variables      []carteiro.TemplateVariable
	VariablesSet   bool
	Format         *string
	IsActive       *bool
	SourceLocale   *string
	StarterSlug    *string
	StarterSlugSet bool
}

// empty reports whether the input changes nothing.
func (in TemplateInput) empty() bool {
	return in.Name == nil && !in.SubjectSet && in.HTML == nil && !in.TextSet && !in.VariablesSet && in.Format == nil &&
		in.IsActive == nil && in.SourceLocale == nil && !in.StarterSlugSet
}

// apply copies the fields present in in onto t.
func (in TemplateInput) apply(t *carteiro.Template) error {
	if in.Name != nil {
		t.Name = *in.Name
	}
	if in.SubjectSet {
		t.Subject = in.Subject
	}
	if in.HTML != nil {
		t.HTML = *in.HTML
	}
	if in.TextSet {
		t.TextPayload = in.Text
	}
	if in.VariablesSet {
		t.Variables = in.Variables
	}
	if in.Format != nil {
		f, ok := carteiro.ParseTemplateFormat(*in.Format)
		if !ok {
			return carteiro.Invalid("format", "invalid_value")
		}
		t.Format = f
	}
	if in.IsActive != nil {
		t.IsActive = *in.IsActive
	}
	if in.SourceLocale != nil {
		t.SourceLocale = *in.SourceLocale
	}
	if in.StarterSlugSet {
		t.StarterSlug = in.StarterSlug
	}
	return nil
}

// templateErr turns an engine error into the API's answer (D37, D39).
func templateErr(err error) error {
	var se *render.SyntaxError
	var re *render.RenderError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		return &carteiro.Error{Code: carteiro.CodeTemplateSyntaxError,
			Details: map[string]any{"line": se.Line, "column": se.Column, "reason": se.Reason}}
	case errors.As(err, &re):
		details := map[string]any{"reason": re.Reason}
		if re.Limit != "" {
			// D61: over a limit, the reason names it (time, memory or
			// output); limit says the same, for callers that read it.
			details["reason"], details["limit"] = re.Limit, re.Limit
		}
		return &carteiro.Error{Code: carteiro.CodeTemplateRenderError, Details: details}
	case errors.As(err, new(*carteiro.Error)):
		return err
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &carteiro.Error{Code: carteiro.CodeServiceUnavailable, Err: err}
	}
	return &carteiro.Error{Code: carteiro.CodeInternal, Err: err}
}

// checkTemplate validates fields and source syntax.
func (a *App) checkTemplate(ctx context.Context, t *carteiro.Template) error {
	if err := carteiro.ValidateTemplate(t); err != nil {
		return err
	}
	return templateErr(a.templates.Check(ctx, t.Source()))
}

// CreateTemplate stores a template (4.3, D38); its source must compile.
func (a *App) CreateTemplate(ctx context.Context, p *Principal, in TemplateInput) (*carteiro.Template, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	if in.Name == nil {
		return nil, carteiro.Invalid("name", "required")
	}
	if in.HTML == nil {
		return nil, carteiro.Invalid("html", "required")
	}
	now := a.clock.Now()
	t := &carteiro.Template{ID: uuid.Must(uuid.NewV7()).String(), OrgID: p.Org.ID, Format: carteiro.TemplateHandlebars,
		IsActive: true, SourceLocale: carteiro.DefaultSourceLocale, Variables: []carteiro.TemplateVariable{},
		CreatedAt: now, UpdatedAt: now}
	if err := in.apply(t); err != nil {
		return nil, err
	}
	if err := a.checkTemplate(ctx, t); err != nil {
		return nil, err
	}
	if err := a.store.CreateTemplate(ctx, t); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return nil, a.templateNameConflict(ctx, p.Org.ID, t.Name)
		}
		return nil, storeErr(err)
	}
	return t, nil
}

// ListTemplates returns every template of the organization with its source.
func (a *App) ListTemplates(ctx context.Context, p *Principal) ([]*carteiro.Template, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	ts, err := a.store.ListTemplates(ctx, p.Org.ID)
	return ts, storeErr(err)
}

// GetTemplate returns one template.
func (a *App) GetTemplate(ctx context.Context, p *Principal, id string) (*carteiro.Template, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	t, err := a.store.Template(ctx, p.Org.ID, id)
	return t, storeErr(err)
}

// UpdateTemplate changes only the fields given (PATCH); the result must
// still validate and compile.
func (a *App) UpdateTemplate(ctx context.Context, p *Principal, id string, in TemplateInput) (*carteiro.Template, error) {
	t, err := a.GetTemplate(ctx, p, id)
	if err != nil {
		return nil, err
	}
	if in.empty() {
		return nil, carteiro.Invalid("body", "required")
	}
	if err := in.apply(t); err != nil {
		return nil, err
	}
	if err := a.checkTemplate(ctx, t); err != nil {
		return nil, err
	}
	t.UpdatedAt = a.clock.Now()
	if err := a.store.UpdateTemplate(ctx, t); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return nil, a.templateNameConflict(ctx, p.Org.ID, t.Name)
		}
		return nil, storeErr(err)
	}
	return t, nil
}

// DeleteTemplate removes a template for good.
func (a *App) DeleteTemplate(ctx context.Context, p *Principal, id string) error {
	if err := p.requireFull(); err != nil {
		return err
	}
	return storeErr(a.store.DeleteTemplate(ctx, p.Org.ID, id))
}

// RenderInput is a source to render without storing it (preview and
// test-render).
type RenderInput struct {
	Source    carteiro.TemplateSource
	Variables *carteiro.JSONObject
}

// sourceFor validates a source given in a request.
func sourceFor(format *string, html *string) (carteiro.TemplateSource, error) {
	src := carteiro.TemplateSource{Format: carteiro.TemplateHandlebars}
	if html == nil || *html == "" {
		return src, carteiro.Invalid("html", "required")
	}
	if len(*html) > carteiro.MaxTemplateSource {
		return src, carteiro.Invalid("html", "too_long")
	}
	src.HTML = *html
	if format != nil {
		f, ok := carteiro.ParseTemplateFormat(*format)
		if !ok {
			return src, carteiro.Invalid("format", "invalid_value")
		}
		src.Format = f
	}
	return src, nil
}

// NewRenderInput builds a RenderInput from request fields.
func NewRenderInput(format, html, subject, text *string, vars *carteiro.JSONObject) (RenderInput, error) {
	src, err := sourceFor(format, html)
	if err != nil {
		return RenderInput{}, err
	}
	if subject != nil {
		if err := carteiro.ValidateSubject(*subject); err != nil {
			return RenderInput{}, err
		}
	}
	src.Subject, src.Text = subject, text
	return RenderInput{Source: src, Variables: vars}, nil
}

// PreviewTemplate renders without sending and without sanitizing (D39).
func (a *App) PreviewTemplate(ctx context.Context, p *Principal, in RenderInput) (carteiro.RenderedTemplate, error) {
	if err := p.requireFull(); err != nil {
		return carteiro.RenderedTemplate{}, err
	}
	out, err := a.templates.Render(ctx, in.Source, in.Variables)
	return out, templateErr(err)
}

// TestRenderTemplate renders and sanitizes (D40): the answer for untrusted
// content.
func (a *App) TestRenderTemplate(ctx context.Context, p *Principal, in RenderInput) (carteiro.RenderedTemplate, carteiro.SanitizeReport, error) {
	out, err := a.PreviewTemplate(ctx, p, in)
	if err != nil {
		return out, carteiro.SanitizeReport{}, err
	}
	out, report := a.templates.Sanitize(out)
	return out, report, nil
}

// FormatTemplate pretty-prints a source without storing it (4.3).
func (a *App) FormatTemplate(ctx context.Context, p *Principal, format, html *string) (string, error) {
	if err := p.requireFull(); err != nil {
		return "", err
	}
	src, err := sourceFor(format, html)
	if err != nil {
		return "", err
	}
	out, err := a.templates.Format(ctx, src.Format, src.HTML)
	return out, templateErr(err)
}

// renderForSend renders an active template of the organization for POST
// /emails (D20): an unknown or inactive template is a 422 on templateId;
// declared defaults fill missing variables (D38).
func (a *App) renderForSend(ctx context.Context, orgID, id string, vars *carteiro.JSONObject) (carteiro.RenderedTemplate, error) {
	t, err := a.store.Template(ctx, orgID, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return carteiro.RenderedTemplate{}, carteiro.Invalid("templateId", "invalid_value")
	case err != nil:
		return carteiro.RenderedTemplate{}, storeErr(err)
	case !t.IsActive:
		return carteiro.RenderedTemplate{}, carteiro.Invalid("templateId", "inactive")
	}
	out, err := a.templates.Render(ctx, t.Source(), t.WithDefaults(vars))
	if err != nil {
		return out, templateErr(err)
	}
	return out, checkRenderedParts(out)
}

// templateNameConflict is the 409 of a name already taken, naming the
// template that holds it (D11 details.id).
func (a *App) templateNameConflict(ctx context.Context, orgID, name string) error {
	id, err := a.store.TemplateIDByName(ctx, orgID, name)
	if err != nil {
		id = "" // deleted meanwhile: still a conflict, without an id
	}
	return carteiro.Conflict(id)
}
