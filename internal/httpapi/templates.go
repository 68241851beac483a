package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
)

type templateVariableJSON struct {
	Name         string  `json:"name"`
	Description  *string `json:"description,omitempty"`
	DefaultValue any     `json:"defaultValue,omitempty"`
}

// templateJSON is the Template read shape (2.6).
type templateJSON struct {
	ID           string                 `json:"id"`
	Name         string                 `json:"name"`
	Subject      *string                `json:"subject"`
	HTML         string                 `json:"html"`
	TextPayload  *string                `json:"textPayload"`
	Variables    []templateVariableJSON `json:"variables"`
	IsActive     bool                   `json:"isActive"`
	Format       string                 `json:"format"`
	SourceLocale string                 `json:"sourceLocale"`
	StarterSlug  *string                `json:"starterSlug"`
	CreatedAt    time.Time              `json:"createdAt"`
	UpdatedAt    time.Time              `json:"updatedAt"`
}

func toTemplateJSON(t *carteiro.Template) templateJSON {
	vars := make([]templateVariableJSON, len(t.Variables))
	for i, v := range t.Variables {
		vars[i] = templateVariableJSON(v)
	}
	return templateJSON{ID: t.ID, Name: t.Name, Subject: t.Subject, HTML: t.HTML, TextPayload: t.TextPayload, Variables: vars,
		IsActive: t.IsActive, Format: string(t.Format), SourceLocale: t.SourceLocale, StarterSlug: t.StarterSlug,
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt}
}

// templateBody is POST /templates and PATCH /templates/:id. Creation names
// the plain text `text`, reads and updates `textPayload` (2.6); both are
// accepted on both routes, and giving both is refused. Nullable fields are
// raw so that null (clear) differs from absent (keep).
type templateBody struct {
	Name         *string                 `json:"name"`
	Subject      json.RawMessage         `json:"subject"`
	HTML         *string                 `json:"html"`
	Text         json.RawMessage         `json:"text"`
	TextPayload  json.RawMessage         `json:"textPayload"`
	Format       *string                 `json:"format"`
	Variables    *[]templateVariableBody `json:"variables"`
	IsActive     *bool                   `json:"isActive"`
	SourceLocale *string                 `json:"sourceLocale"`
	StarterSlug  json.RawMessage         `json:"starterSlug"`
}

type templateVariableBody struct {
	Name         *string `json:"name"`
	Description  *string `json:"description"`
	DefaultValue any     `json:"defaultValue"`
}

// nullableString reads a raw field: absent (set false), null (set, nil)
// or a string.
func nullableString(field string, raw json.RawMessage) (value *string, set bool, err error) {
	if len(raw) == 0 {
		return nil, false, nil
	}
	if isNull(raw) {
		return nil, true, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, false, carteiro.Invalid(field, "invalid_type")
	}
	return &s, true, nil
}

func decodeTemplate(raw []byte) (app.TemplateInput, error) {
	var b templateBody
	if err := DecodeJSON(raw, &b, false); err != nil {
		return app.TemplateInput{}, err
	}
	in := app.TemplateInput{Name: b.Name, HTML: b.HTML, Format: b.Format, IsActive: b.IsActive, SourceLocale: b.SourceLocale}
	var err error
	if in.Subject, in.SubjectSet, err = nullableString("subject", b.Subject); err != nil {
		return in, err
	}
	if len(b.Text) > 0 && len(b.TextPayload) > 0 {
		return in, carteiro.Invalid("textPayload", "not_allowed")
	}
	textField, textRaw := "text", b.Text
	if len(b.TextPayload) > 0 {
		textField, textRaw = "textPayload", b.TextPayload
	}
	if in.Text, in.TextSet, err = nullableString(textField, textRaw); err != nil {
		return in, err
	}
	if in.StarterSlug, in.StarterSlugSet, err = nullableString("starterSlug", b.StarterSlug); err != nil {
		return in, err
	}
	if b.Variables != nil {
		in.VariablesSet = true
		in.Variables = make([]carteiro.TemplateVariable, 0, len(*b.Variables))
		for i, v := range *b.Variables {
			if v.Name == nil {
				return in, carteiro.Invalid(fmt.Sprintf("variables[%d].name", i), "required")
			}
			in.Variables = append(in.Variables, carteiro.TemplateVariable{Name: *v.Name, Description: v.Description, DefaultValue: v.DefaultValue})
		}
	}
	return in, nil
}

func (s *Server) createTemplate(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err == nil {
		var in app.TemplateInput
		if in, err = decodeTemplate(body); err == nil {
			var t *carteiro.Template
			if t, err = s.app.CreateTemplate(r.Context(), principalOf(r.Context()), in); err == nil {
				writeJSON(w, http.StatusCreated, toTemplateJSON(t))
				return
			}
		}
	}
	s.writeError(w, r, err)
}

func (s *Server) listTemplates(w http.ResponseWriter, r *http.Request) {
	ts, err := s.app.ListTemplates(r.Context(), principalOf(r.Context()))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": mapAll(ts, toTemplateJSON)})
}

func (s *Server) getTemplate(w http.ResponseWriter, r *http.Request) {
	t, err := s.app.GetTemplate(r.Context(), principalOf(r.Context()), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toTemplateJSON(t))
}

func (s *Server) updateTemplate(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err == nil {
		var in app.TemplateInput
		if in, err = decodeTemplate(body); err == nil {
			var t *carteiro.Template
			if t, err = s.app.UpdateTemplate(r.Context(), principalOf(r.Context()), r.PathValue("id"), in); err == nil {
				writeJSON(w, http.StatusOK, toTemplateJSON(t))
				return
			}
		}
	}
	s.writeError(w, r, err)
}

func (s *Server) deleteTemplate(w http.ResponseWriter, r *http.Request) {
	if err := s.app.DeleteTemplate(r.Context(), principalOf(r.Context()), r.PathValue("id")); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// renderBody is POST /templates/preview and /templates/test-render.
// subject and text are our additions: the same Handlebars fields a stored
// template has, so a preview shows everything a send would.
type renderBody struct {
	HTML      *string              `json:"html"`
	Format    *string              `json:"format"`
	Variables *carteiro.JSONObject `json:"variables"`
	Subject   *string              `json:"subject"`
	Text      *string              `json:"text"`
}

func (s *Server) decodeRender(r *http.Request) (app.RenderInput, error) {
	var b renderBody
	if err := s.decode(r, &b, false); err != nil {
		return app.RenderInput{}, err
	}
	return app.NewRenderInput(b.Format, b.HTML, b.Subject, b.Text, b.Variables)
}

func (s *Server) previewTemplate(w http.ResponseWriter, r *http.Request) {
	in, err := s.decodeRender(r)
	if err == nil {
		var out carteiro.RenderedTemplate
		if out, err = s.app.PreviewTemplate(r.Context(), principalOf(r.Context()), in); err == nil {
			var subject *string
			if in.Source.Subject != nil {
				subject = &out.Subject
			}
			writeJSON(w, http.StatusOK, map[string]any{"html": out.HTML, "text": out.Text, "subject": subject})
			return
		}
	}
	s.writeError(w, r, err)
}

func (s *Server) testRenderTemplate(w http.ResponseWriter, r *http.Request) {
	in, err := s.decodeRender(r)
	if err == nil {
		var out carteiro.RenderedTemplate
		var rep carteiro.SanitizeReport
		if out, rep, err = s.app.TestRenderTemplate(r.Context(), principalOf(r.Context()), in); err == nil {
			writeJSON(w, http.StatusOK, map[string]any{"html": out.HTML, "text": out.Text, "sanitizeReport": map[string]int{
				"scripts": rep.Scripts, "iframes": rep.Iframes, "javascriptHrefs": rep.JavascriptHrefs, "eventHandlers": rep.EventHandlers}})
			return
		}
	}
	s.writeError(w, r, err)
}

func (s *Server) formatTemplate(w http.ResponseWriter, r *http.Request) {
	var b struct {
		HTML   *string `json:"html"`
		Format *string `json:"format"`
	}
	err := s.decode(r, &b, false)
	if err == nil {
		var out string
		if out, err = s.app.FormatTemplate(r.Context(), principalOf(r.Context()), b.Format, b.HTML); err == nil {
			writeJSON(w, http.StatusOK, map[string]string{"html": out})
			return
		}
	}
	s.writeError(w, r, err)
}
