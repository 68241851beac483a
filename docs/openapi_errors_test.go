package docs

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestEveryErrorAnswerIsTheEnvelope: every 4xx and 5xx an operation lists
// has a JSON body typed as the error envelope (D9), directly, through allOf
// or through a oneOf of envelopes, so that generated clients type errors
// too (issue 29).
func TestEveryErrorAnswerIsTheEnvelope(t *testing.T) {
	t.Parallel()
	var doc map[string]any
	if err := yaml.Unmarshal(OpenAPIYAML(), &doc); err != nil {
		t.Fatal(err)
	}
	components, _ := doc["components"].(map[string]any)
	lookup := func(ref string) map[string]any {
		parts := strings.Split(ref, "/")
		if len(parts) != 4 || parts[1] != "components" {
			return nil
		}
		group, _ := components[parts[2]].(map[string]any)
		m, _ := group[parts[3]].(map[string]any)
		return m
	}
	var isEnvelope func(schema map[string]any, depth int) bool
	isEnvelope = func(schema map[string]any, depth int) bool {
		if schema == nil || depth > 5 {
			return false
		}
		if ref, ok := schema["$ref"].(string); ok {
			return ref == "#/components/schemas/ErrorEnvelope" || isEnvelope(lookup(ref), depth+1)
		}
		if all, ok := schema["allOf"].([]any); ok {
			for _, s := range all {
				if m, _ := s.(map[string]any); isEnvelope(m, depth+1) {
					return true
				}
			}
		}
		if one, ok := schema["oneOf"].([]any); ok && len(one) > 0 {
			for _, s := range one {
				if m, _ := s.(map[string]any); !isEnvelope(m, depth+1) {
					return false
				}
			}
			return true
		}
		return false
	}
	paths, _ := doc["paths"].(map[string]any)
	for path, item := range paths {
		methods, _ := item.(map[string]any)
		for method, node := range methods {
			op, ok := node.(map[string]any)
			if !ok || op["responses"] == nil {
				continue
			}
			responses, _ := op["responses"].(map[string]any)
			for code, r := range responses {
				if code < "400" {
					continue
				}
				resp, _ := r.(map[string]any)
				if ref, ok := resp["$ref"].(string); ok {
					resp = lookup(ref)
				}
				content, _ := resp["content"].(map[string]any)
				media, _ := content["application/json"].(map[string]any)
				schema, _ := media["schema"].(map[string]any)
				if !isEnvelope(schema, 0) {
					t.Errorf("%s %s %s: the answer is not typed as the error envelope (D9)", method, path, code)
				}
			}
		}
	}
}
