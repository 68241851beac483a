package docs

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestSchemasGenerateTypedClients keeps the description in the forms client
// generators (openapi-typescript, oapi-codegen) can type (issue 29): anyOf,
// not and if/then have no type in those languages and turned
// SendEmailRequest into `unknown`, so rules such as "one of html, text or
// templateId" live in descriptions and in the server's validation; and an
// object without properties must say what its values are
// (additionalProperties), else generators make it an object that accepts no
// key (`Record<string, never>`) and `variables: {x: 1}` does not compile.
// oneOf of distinct shapes (a string or an object, an envelope or another)
// stays: it becomes a union.
func TestSchemasGenerateTypedClients(t *testing.T) {
	t.Parallel()
	var doc any
	if err := yaml.Unmarshal(OpenAPIYAML(), &doc); err != nil {
		t.Fatal(err)
	}
	walkSchemas(doc, "#", func(at string, node map[string]any) {
		keywords := []string{"anyOf", "not"}
		// if/then adds to a shape without changing its type, so generators
		// merely drop it; it may refine an error's details for the
		// response checks (internal/apicheck), not a shared schema.
		if strings.HasPrefix(at, "#/components/schemas/") {
			keywords = append(keywords, "if", "then", "else")
		}
		for _, keyword := range keywords {
			if _, ok := node[keyword]; ok {
				t.Errorf("%s: %s cannot be typed by client generators; say it in the description", at, keyword)
			}
		}
		if isObjectType(node["type"]) && node["properties"] == nil && node["additionalProperties"] == nil {
			t.Errorf("%s: an object without properties needs additionalProperties (true or a schema), else it is generated as an object that takes no key", at)
		}
	})
}

// walkSchemas calls visit on every mapping of the document with its JSON
// pointer; the checks above only fire on schema keywords, which no other
// OpenAPI object uses.
func walkSchemas(node any, at string, visit func(string, map[string]any)) {
	switch n := node.(type) {
	case map[string]any:
		visit(at, n)
		for k, v := range n {
			walkSchemas(v, at+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"), visit)
		}
	case []any:
		for i, v := range n {
			walkSchemas(v, at+"/"+strconv.Itoa(i), visit)
		}
	}
}

func isObjectType(v any) bool {
	switch t := v.(type) {
	case string:
		return t == "object"
	case []any:
		return slices.Contains(t, any("object"))
	}
	return false
}
