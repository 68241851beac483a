// Package docs holds the project's documents that the program itself serves,
// above all the OpenAPI description of the API (openapi.yaml), which
// GET /v1/product/openapi.json answers and internal/apicheck holds responses to.
package docs

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"
)

//go:embed openapi.yaml
var openAPIYAML []byte

// openAPIJSON converts the YAML once: the document never changes while the
// program runs, and the conversion walks every node of it.
var openAPIJSON = sync.OnceValues(func() ([]byte, error) {
	out, err := yamlToJSON(openAPIYAML)
	if err != nil {
		return nil, fmt.Errorf("docs: openapi.yaml to JSON: %w", err)
	}
	return out, nil
})

// OpenAPIYAML returns the OpenAPI 3.1 description as written. The slice is a
// copy, so callers may change it freely.
func OpenAPIYAML() []byte { return bytes.Clone(openAPIYAML) }

// OpenAPIJSON returns the same description as JSON, keys in the order the
// YAML writes them, as served at /v1/product/openapi.json. The slice is a copy.
func OpenAPIJSON() ([]byte, error) {
	out, err := openAPIJSON()
	if err != nil {
		return nil, err
	}
	return bytes.Clone(out), nil
}
