package i18n

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func newCatalog(t *testing.T) *Catalog {
	t.Helper()
	c, err := New()
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// TestCodesCoverErrorGo keeps Codes() in step with the Code* constants of the
// root package, read from the source so a new code fails this test until it
// is listed (and then translated, see TestEveryCodeTranslated).
func TestCodesCoverErrorGo(t *testing.T) {
	t.Parallel()
	file, err := parser.ParseFile(token.NewFileSet(), "../../error.go", nil, 0)
	if err != nil {
		t.Fatalf("parse error.go: %v", err)
	}
	var declared []string
	for _, decl := range file.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		for _, spec := range gen.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if !strings.HasPrefix(name.Name, "Code") || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				value, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatalf("unquote %s: %v", lit.Value, err)
				}
				declared = append(declared, value)
			}
		}
	}
	if len(declared) == 0 {
		t.Fatal("found no Code* constants in error.go")
	}
	got := slices.Sorted(slices.Values(Codes()))
	slices.Sort(declared)
	if !slices.Equal(got, declared) {
		t.Errorf("Codes() = %v\nerror.go declares %v", got, declared)
	}
}

// TestEveryCodeTranslated checks each code has its own message in every
// language, and that the languages really differ.
func TestEveryCodeTranslated(t *testing.T) {
	t.Parallel()
	c := newCatalog(t)
	internal := map[Lang]string{}
	for _, lang := range Langs() {
		internal[lang] = c.Error(lang, "INTERNAL_ERROR", "", "")
	}
	for _, code := range Codes() {
		seen := map[string]Lang{}
		for _, lang := range Langs() {
			msg := c.Error(lang, code, "", "")
			if strings.TrimSpace(msg) == "" {
				t.Errorf("%s/%s: empty message", lang, code)
			}
			if code != "INTERNAL_ERROR" && msg == internal[lang] {
				t.Errorf("%s/%s: falls back to INTERNAL_ERROR, message missing", lang, code)
			}
			if strings.Contains(msg, code) || strings.Contains(msg, "{{") {
				t.Errorf("%s/%s: message leaks an identifier or placeholder: %q", lang, code, msg)
			}
			if other, dup := seen[msg]; dup {
				t.Errorf("%s/%s: same text as %s: %q", lang, code, other, msg)
			}
			seen[msg] = lang
		}
	}
}

// TestEveryReasonTranslated checks each reason has its own message, naming
// the field, in every language, and that the languages differ.
func TestEveryReasonTranslated(t *testing.T) {
	t.Parallel()
	c := newCatalog(t)
	const field = "attachments[3].cid"
	for _, lang := range Langs() {
		generic := c.Error(lang, "VALIDATION_ERROR", field, "no_such_reason")
		byText := map[string]string{}
		for _, reason := range Reasons() {
			msg := c.Error(lang, "VALIDATION_ERROR", field, reason)
			if !strings.Contains(msg, field) {
				t.Errorf("%s/%s: field not named: %q", lang, reason, msg)
			}
			if msg == generic {
				t.Errorf("%s/%s: falls back to the generic message", lang, reason)
			}
			if other, dup := byText[msg]; dup {
				t.Errorf("%s/%s: same text as reason %s: %q", lang, reason, other, msg)
			}
			byText[msg] = reason
		}
	}
	for _, reason := range Reasons() {
		seen := map[string]Lang{}
		for _, lang := range Langs() {
			msg := c.Error(lang, "VALIDATION_ERROR", field, reason)
			if other, dup := seen[msg]; dup {
				t.Errorf("%s/%s: same text as %s: %q", lang, reason, other, msg)
			}
			seen[msg] = lang
		}
	}
}

func TestValidationMessages(t *testing.T) {
	t.Parallel()
	c := newCatalog(t)
	tests := []struct {
		lang          Lang
		field, reason string
		want          string
	}{
		{PtBR, "to[2]", "invalid_email", "O campo “to[2]” não contém um endereço de e-mail válido."},
		{En, "subject", "required", "The field “subject” is required."},
		{Es, "tags[0].name", "too_long", "El campo «tags[0].name» supera la longitud máxima permitida."},
		// Unknown reasons fall back to the generic message, still naming the field.
		{PtBR, "x", "weird", "O campo “x” é inválido."},
		{En, "x", "", "The field “x” is invalid."},
		{Es, "x", "weird", "El campo «x» no es válido."},
		// Without a field there is nothing to name: the plain code message.
		{PtBR, "", "required", "A requisição contém dados inválidos."},
		// Template syntax in a field is data, never executed.
		{En, "{{.Field}}", "required", "The field “{{.Field}}” is required."},
	}
	for _, tt := range tests {
		if got := c.Error(tt.lang, "VALIDATION_ERROR", tt.field, tt.reason); got != tt.want {
			t.Errorf("Error(%s, %q, %q) = %q, want %q", tt.lang, tt.field, tt.reason, got, tt.want)
		}
	}
}

func TestErrorMessagesAndFallbacks(t *testing.T) {
	t.Parallel()
	c := newCatalog(t)
	tests := []struct {
		lang       Lang
		code       string
		field, why string
		want       string
	}{
		{PtBR, "NOT_FOUND", "", "", "Recurso não encontrado."},
		{PtBR, "RATE_LIMIT_EXCEEDED", "", "", "Limite de requisições excedido. Tente novamente em alguns segundos."},
		{En, "NOT_FOUND", "", "", "Resource not found."},
		{Es, "NOT_FOUND", "", "", "Recurso no encontrado."},
		// field and reason only matter for VALIDATION_ERROR.
		{En, "CONFLICT", "domain", "duplicate", "A record with this data already exists."},
		// Unknown code: the INTERNAL_ERROR message, in the right language.
		{PtBR, "NO_SUCH_CODE", "", "", "Ocorreu um erro inesperado. Tente novamente mais tarde."},
		{Es, "", "", "", "Se produjo un error inesperado. Inténtelo de nuevo más tarde."},
		// Unsupported language: the default.
		{Lang("fr"), "NOT_FOUND", "", "", "Recurso não encontrado."},
	}
	for _, tt := range tests {
		if got := c.Error(tt.lang, tt.code, tt.field, tt.why); got != tt.want {
			t.Errorf("Error(%s, %s) = %q, want %q", tt.lang, tt.code, got, tt.want)
		}
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	c := newCatalog(t)
	if got := c.Text(Es, "language.name", nil); got != "Español" {
		t.Errorf("Text(es, language.name) = %q", got)
	}
	if got := c.Text(En, "validation.required", map[string]any{"Field": "from"}); got != "The field “from” is required." {
		t.Errorf("Text with data = %q", got)
	}
	if got := c.Text(En, "no.such.id", nil); got != "no.such.id" {
		t.Errorf("Text for a missing id = %q, want the id", got)
	}
}

// TestCatalogsHaveTheSameIDs catches a message added to one language only,
// including UI texts that Codes and Reasons do not list.
func TestCatalogsHaveTheSameIDs(t *testing.T) {
	t.Parallel()
	ids := map[Lang][]string{}
	for _, lang := range Langs() {
		raw, err := localeFiles.ReadFile("locales/" + string(lang) + ".json")
		if err != nil {
			t.Fatalf("read %s: %v", lang, err)
		}
		var messages map[string]string
		if err := json.Unmarshal(raw, &messages); err != nil {
			t.Fatalf("%s: catalogs are flat id → text maps: %v", lang, err)
		}
		for id, text := range messages {
			if strings.TrimSpace(text) == "" {
				t.Errorf("%s/%s: empty text", lang, id)
			}
			ids[lang] = append(ids[lang], id)
		}
		slices.Sort(ids[lang])
	}
	for _, lang := range Langs()[1:] {
		if !slices.Equal(ids[lang], ids[Default]) {
			t.Errorf("%s ids differ from %s:\n%v\n%v", lang, Default, ids[lang], ids[Default])
		}
	}
}

func TestCatalogConcurrentUse(t *testing.T) {
	t.Parallel()
	c := newCatalog(t)
	done := make(chan string)
	for _, lang := range Langs() {
		go func() {
			var last string
			for range 200 {
				last = c.Error(lang, "VALIDATION_ERROR", "to", "required")
			}
			done <- last
		}()
	}
	for range Langs() {
		if msg := <-done; msg == "" {
			t.Error("empty message under concurrent use")
		}
	}
}
