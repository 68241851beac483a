package i18n

import (
	"embed"
	"encoding/json"
	"fmt"

	"github.com/carteiro/carteiro"
	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

// localeFiles holds one JSON catalog per language, named by its tag. Message
// ids are namespaced: "error.<CODE>", "validation.<reason>" and, for the
// dashboard and e-mails, ids of their own.
//
//go:embed locales/*.json
var localeFiles embed.FS

// Message ids the Catalog builds from codes and reasons.
const (
	errorPrefix       = "error."
	validationPrefix  = "validation."
	validationGeneric = validationPrefix + "generic"
)

// Catalog renders localized messages. It is read-only after New and safe for
// concurrent use.
type Catalog struct {
	localizers map[Lang]*goi18n.Localizer
}

// New loads the embedded catalogs of every supported language.
func New() (*Catalog, error) {
	bundle := goi18n.NewBundle(language.BrazilianPortuguese)
	bundle.RegisterUnmarshalFunc("json", json.Unmarshal)
	c := &Catalog{localizers: make(map[Lang]*goi18n.Localizer, len(Langs()))}
	for _, lang := range Langs() {
		path := "locales/" + string(lang) + ".json"
		if _, err := bundle.LoadMessageFileFS(localeFiles, path); err != nil {
			return nil, fmt.Errorf("i18n: load catalog %s: %w", path, err)
		}
		c.localizers[lang] = goi18n.NewLocalizer(bundle, string(lang))
	}
	return c, nil
}

// Error returns the message for an error code in lang. For VALIDATION_ERROR
// with a field, the message names the field and explains reason; an unknown
// reason gets a generic "field is invalid" message, and without a field the
// plain VALIDATION_ERROR message is used. field and reason are ignored for
// other codes. An unknown code gets the INTERNAL_ERROR message, so callers
// never show an empty message or an internal identifier.
func (c *Catalog) Error(lang Lang, code string, field, reason string) string {
	if code == carteiro.CodeValidation && field != "" {
		data := map[string]any{"Field": field}
		if msg, ok := c.exact(lang, validationPrefix+reason, data); ok {
			return msg
		}
		if msg, ok := c.exact(lang, validationGeneric, data); ok {
			return msg
		}
	}
	if msg, ok := c.exact(lang, errorPrefix+code, nil); ok {
		return msg
	}
	return c.Text(lang, errorPrefix+carteiro.CodeInternal, nil)
}

// Text returns the message id in lang, filling its {{.Name}} placeholders from
// data. A message missing in lang falls back to pt-BR, and an id missing from
// every catalog comes back as the id itself, which is visible in review but
// never an empty string.
func (c *Catalog) Text(lang Lang, id string, data map[string]any) string {
	msg, err := c.localizer(lang).Localize(&goi18n.LocalizeConfig{MessageID: id, TemplateData: data})
	if err != nil && msg == "" {
		return id
	}
	return msg
}

// exact renders id only when lang itself has it, so a missing translation
// falls to a generic message in the right language rather than to another
// language.
func (c *Catalog) exact(lang Lang, id string, data map[string]any) (string, bool) {
	msg, err := c.localizer(lang).Localize(&goi18n.LocalizeConfig{MessageID: id, TemplateData: data})
	return msg, err == nil && msg != ""
}

// localizer returns the localizer of lang, the default one for a Lang that is
// not supported.
func (c *Catalog) localizer(lang Lang) *goi18n.Localizer {
	if l, ok := c.localizers[lang]; ok {
		return l
	}
	return c.localizers[Default]
}
