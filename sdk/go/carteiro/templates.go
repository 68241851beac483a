package carteiro

import (
	"context"
	"iter"
	"net/http"
	"time"
)

// TemplatesService manages email templates (api-v1.md 4.3).
type TemplatesService struct{ c *Client }

// Template is a stored template (api-v1.md 2.6). Format is html
// (Handlebars) or react (React Email).
type Template struct {
	ID           string             `json:"id"`
	Name         string             `json:"name"`
	Subject      *string            `json:"subject"`
	HTML         string             `json:"html"`
	TextPayload  *string            `json:"textPayload"`
	Variables    []TemplateVariable `json:"variables"`
	IsActive     bool               `json:"isActive"`
	Format       string             `json:"format"`
	SourceLocale string             `json:"sourceLocale"`
	StarterSlug  *string            `json:"starterSlug"`
	CreatedAt    time.Time          `json:"createdAt"`
	UpdatedAt    time.Time          `json:"updatedAt"`
}

// TemplateVariable is a variable a template uses.
type TemplateVariable struct {
	Name         string `json:"name"`
	DefaultValue any    `json:"defaultValue,omitempty"`
	Description  string `json:"description,omitempty"`
}

// CreateTemplateRequest is POST /templates. Format is handlebars (or html)
// or react_email (or react).
type CreateTemplateRequest struct {
	Name         string             `json:"name"`
	Subject      *string            `json:"subject,omitempty"`
	HTML         string             `json:"html"`
	Text         *string            `json:"text,omitempty"`
	Format       string             `json:"format,omitempty"`
	Variables    []TemplateVariable `json:"variables,omitempty"`
	IsActive     *bool              `json:"isActive,omitempty"`
	SourceLocale string             `json:"sourceLocale,omitempty"`
	StarterSlug  *string            `json:"starterSlug,omitempty"`
}

// UpdateTemplateRequest is PATCH /templates/{id}: nil fields stay as they
// are; Null[string]() clears the nullable ones.
type UpdateTemplateRequest struct {
	Name         string             `json:"name,omitempty"`
	Subject      *Nullable[string]  `json:"subject,omitempty"`
	HTML         string             `json:"html,omitempty"`
	TextPayload  *Nullable[string]  `json:"textPayload,omitempty"`
	Format       string             `json:"format,omitempty"`
	Variables    []TemplateVariable `json:"variables,omitempty"`
	IsActive     *bool              `json:"isActive,omitempty"`
	SourceLocale string             `json:"sourceLocale,omitempty"`
	StarterSlug  *Nullable[string]  `json:"starterSlug,omitempty"`
}

// RenderTemplateRequest is the body of Preview and TestRender.
type RenderTemplateRequest struct {
	HTML      string         `json:"html"`
	Format    string         `json:"format,omitempty"`
	Variables map[string]any `json:"variables,omitempty"`
	Subject   string         `json:"subject,omitempty"`
	Text      string         `json:"text,omitempty"`
}

// TemplatePreview is the answer to Preview (not sanitized).
type TemplatePreview struct {
	HTML    string  `json:"html"`
	Text    string  `json:"text"`
	Subject *string `json:"subject"`
}

// TestRenderResult is the answer to TestRender: sanitized, with what was
// removed.
type TestRenderResult struct {
	HTML           string `json:"html"`
	Text           string `json:"text"`
	SanitizeReport struct {
		Scripts         int `json:"scripts"`
		Iframes         int `json:"iframes"`
		JavascriptHrefs int `json:"javascriptHrefs"`
		EventHandlers   int `json:"eventHandlers"`
	} `json:"sanitizeReport"`
}

// Create is POST /templates.
func (s *TemplatesService) Create(ctx context.Context, req *CreateTemplateRequest) (*Template, error) {
	var out Template
	err := s.c.do(ctx, call{method: http.MethodPost, path: "/templates", body: req}, &out)
	return result(&out, err)
}

// ListPage is GET /templates: every template in one answer.
func (s *TemplatesService) ListPage(ctx context.Context) ([]Template, error) {
	var out struct {
		Data []Template `json:"data"`
	}
	err := s.c.do(ctx, call{method: http.MethodGet, path: "/templates", idempotent: true}, &out)
	return out.Data, err
}

// List iterates over GET /templates.
func (s *TemplatesService) List(ctx context.Context) iter.Seq2[*Template, error] {
	return onePage(ctx, s.ListPage)
}

// Get is GET /templates/{id}.
func (s *TemplatesService) Get(ctx context.Context, id string) (*Template, error) {
	var out Template
	err := s.c.do(ctx, call{method: http.MethodGet, path: pathf("/templates/%s", id), idempotent: true}, &out)
	return result(&out, err)
}

// Update is PATCH /templates/{id}.
func (s *TemplatesService) Update(ctx context.Context, id string, req *UpdateTemplateRequest) (*Template, error) {
	var out Template
	err := s.c.do(ctx, call{method: http.MethodPatch, path: pathf("/templates/%s", id), body: req, idempotent: true}, &out)
	return result(&out, err)
}

// Delete is DELETE /templates/{id}.
func (s *TemplatesService) Delete(ctx context.Context, id string) error {
	return s.c.do(ctx, call{method: http.MethodDelete, path: pathf("/templates/%s", id), idempotent: true}, nil)
}

// Preview is POST /templates/preview: rendered, not sanitized. Use
// TestRender for content you do not trust.
func (s *TemplatesService) Preview(ctx context.Context, req *RenderTemplateRequest) (*TemplatePreview, error) {
	var out TemplatePreview
	err := s.c.do(ctx, call{method: http.MethodPost, path: "/templates/preview", body: req, idempotent: true}, &out)
	return result(&out, err)
}

// Format is POST /templates/format: the source formatted, not stored.
// format is html or react ("" for html).
func (s *TemplatesService) Format(ctx context.Context, html, format string) (string, error) {
	body := map[string]string{"html": html}
	if format != "" {
		body["format"] = format
	}
	var out struct {
		HTML string `json:"html"`
	}
	err := s.c.do(ctx, call{method: http.MethodPost, path: "/templates/format", body: body, idempotent: true}, &out)
	return out.HTML, err
}

// TestRender is POST /templates/test-render: rendered and sanitized.
func (s *TemplatesService) TestRender(ctx context.Context, req *RenderTemplateRequest) (*TestRenderResult, error) {
	var out TestRenderResult
	err := s.c.do(ctx, call{method: http.MethodPost, path: "/templates/test-render", body: req, idempotent: true}, &out)
	return result(&out, err)
}
