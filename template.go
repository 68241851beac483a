package carteiro

import (
	"fmt"
	"time"
	"unicode/utf8"
)

// TemplateFormat is the language of a template's source, spelled as reads
// return it (2.6, D37).
type TemplateFormat string

const (
	// TemplateHandlebars is Handlebars-flavoured HTML.
	TemplateHandlebars TemplateFormat = "html"
	// TemplateReact is React Email JSX/TSX.
	TemplateReact TemplateFormat = "react"
)

// ParseTemplateFormat accepts both spellings of D37: handlebars/html and
// react_email/react.
func ParseTemplateFormat(s string) (TemplateFormat, bool) {
	switch s {
	case "handlebars", "html":
		return TemplateHandlebars, true
	case "react_email", "react":
		return TemplateReact, true
	}
	return "", false
}

// TemplateVariable declares one variable of a template (2.6). DefaultValue
// fills it when a render is given no value (D38); nil means no default.
type TemplateVariable struct {
	Name         string
	Description  *string
	DefaultValue any
}

// Template is a stored email design (2.6).
type Template struct {
	ID      string
	OrgID   string
	Name    string
	Subject *string
	// HTML is the source: Handlebars HTML or React Email JSX/TSX.
	HTML string
	// TextPayload is the customer's plain text; nil means generated from
	// the rendered HTML (D38).
	TextPayload  *string
	Variables    []TemplateVariable
	IsActive     bool
	Format       TemplateFormat
	SourceLocale string
	StarterSlug  *string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Template limits of our own (docs/templates.md): names like other names,
// a source well above any real email design but bounded.
const (
	MaxTemplateName      = 255
	MaxTemplateSource    = 512 << 10
	MaxTemplateVariables = 200
	MaxVariableName      = 100
	// DefaultSourceLocale is the language assumed when none is given.
	DefaultSourceLocale = "en"
)

// ValidateTemplate checks the fields a user sets (names, sizes, variable
// declarations); the source's syntax is checked by the render engines.
func ValidateTemplate(t *Template) error {
	if n := utf8.RuneCountInString(t.Name); n == 0 {
		return Invalid("name", "required")
	} else if n > MaxTemplateName {
		return Invalid("name", "too_long")
	}
	if t.Subject != nil {
		if err := ValidateSubject(*t.Subject); err != nil {
			return err
		}
	}
	if t.HTML == "" {
		return Invalid("html", "required")
	}
	if len(t.HTML) > MaxTemplateSource {
		return Invalid("html", "too_long")
	}
	if t.TextPayload != nil && len(*t.TextPayload) > MaxTemplateSource {
		return Invalid("textPayload", "too_long")
	}
	if len(t.Variables) > MaxTemplateVariables {
		return Invalid("variables", "too_many")
	}
	seen := make(map[string]bool, len(t.Variables))
	for i, v := range t.Variables {
		field := fmt.Sprintf("variables[%d].name", i)
		switch {
		case v.Name == "":
			return Invalid(field, "required")
		case utf8.RuneCountInString(v.Name) > MaxVariableName:
			return Invalid(field, "too_long")
		case seen[v.Name]:
			return Invalid(field, "duplicate")
		}
		seen[v.Name] = true
	}
	if t.SourceLocale == "" || utf8.RuneCountInString(t.SourceLocale) > 35 {
		return Invalid("sourceLocale", "invalid_value")
	}
	if t.StarterSlug != nil && utf8.RuneCountInString(*t.StarterSlug) > MaxTemplateName {
		return Invalid("starterSlug", "too_long")
	}
	return nil
}

// WithDefaults returns vars completed with the declared default values of
// the variables it lacks (D38). vars itself is not changed.
// Like {...defaults, ...vars}: the defaults' members come first, in their
// declared order, then the caller's new ones in the order they were sent.
func (t *Template) WithDefaults(vars *JSONObject) *JSONObject {
	defaults := NewJSONObject(len(t.Variables))
	for _, v := range t.Variables {
		if v.DefaultValue != nil {
			defaults.Set(v.Name, v.DefaultValue)
		}
	}
	return defaults.Merged(vars)
}

// TemplateSource is what a render needs: the source and its optional
// subject and plain-text templates. Subject and Text are Handlebars in both
// formats (docs/templates.md).
type TemplateSource struct {
	Format  TemplateFormat
	HTML    string
	Subject *string
	Text    *string
}

// Source returns t as a render input.
func (t *Template) Source() TemplateSource {
	return TemplateSource{Format: t.Format, HTML: t.HTML, Subject: t.Subject, Text: t.TextPayload}
}

// RenderedTemplate is a render's result. Subject is "" when the source has
// none; Text is the rendered text template, or else generated from HTML.
type RenderedTemplate struct {
	Subject string
	HTML    string
	Text    string
}

// SanitizeReport counts what test-render removed (4.3, D40).
type SanitizeReport struct {
	Scripts         int
	Iframes         int
	JavascriptHrefs int
	EventHandlers   int
}
