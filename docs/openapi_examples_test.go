package docs

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestEveryOperationHasAnExample: issue 29 asks for an example on every
// operation, so that readers and generated clients (openapi-typescript puts
// them in doc comments) see real values. It counts one on the request body,
// on a success answer, or, for calls that carry neither (a DELETE answering
// 204), on a parameter. Redocly's recommended rules check each example
// against its schema (TestOpenAPIPassesRedoclyRecommended).
func TestEveryOperationHasAnExample(t *testing.T) {
	t.Parallel()
	var doc map[string]any
	if err := yaml.Unmarshal(OpenAPIYAML(), &doc); err != nil {
		t.Fatal(err)
	}
	components, _ := doc["components"].(map[string]any)
	resolve := func(node any) map[string]any {
		m, _ := node.(map[string]any)
		if ref, ok := m["$ref"].(string); ok {
			// #/components/<kind>/<name>
			if parts := strings.Split(ref, "/"); len(parts) == 4 && parts[1] == "components" {
				group, _ := components[parts[2]].(map[string]any)
				m, _ = group[parts[3]].(map[string]any)
			}
		}
		return m
	}
	hasMediaExample := func(content any) bool {
		media, _ := content.(map[string]any)
		for _, mt := range media {
			m, _ := mt.(map[string]any)
			if m["example"] != nil || m["examples"] != nil {
				return true
			}
		}
		return false
	}
	paths, _ := doc["paths"].(map[string]any)
	operations := 0
	for path, item := range paths {
		methods, _ := item.(map[string]any)
		shared, _ := methods["parameters"].([]any)
		for method, node := range methods {
			op, ok := node.(map[string]any)
			if !ok || op["operationId"] == nil {
				continue
			}
			operations++
			found := false
			if body := resolve(op["requestBody"]); body != nil && hasMediaExample(body["content"]) {
				found = true
			}
			responses, _ := op["responses"].(map[string]any)
			for code, r := range responses {
				if len(code) == 3 && (code[0] == '2' || code[0] == '3') && hasMediaExample(resolve(r)["content"]) {
					found = true
				}
			}
			params, _ := op["parameters"].([]any)
			for _, p := range append(params, shared...) {
				if pm := resolve(p); pm["example"] != nil || (pm["examples"] != nil && pm["in"] != "header") {
					found = true
				}
			}
			if !found {
				t.Errorf("%s %s (%v): no example on its body, its success answer or its parameters", method, path, op["operationId"])
			}
		}
	}
	if operations < 60 {
		t.Fatalf("walked only %d operations", operations)
	}
}
