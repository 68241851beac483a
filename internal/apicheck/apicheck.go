// Package apicheck holds HTTP responses to the OpenAPI description in docs/
// (docs/openapi.yaml), so that end-to-end tests fail when the server and its
// published description drift apart: an undocumented status, a field missing,
// misnamed or of the wrong type, a missing rate-limit header.
//
// The document is parsed and validated as OpenAPI 3.1 by kin-openapi; response
// bodies and headers are validated by a JSON Schema 2020-12 validator
// (santhosh-tekuri/jsonschema) compiled straight from the served JSON, so the
// schemas are judged exactly as a client reading /v1/product/openapi.json
// would judge them, with no model of ours in between.
package apicheck

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/carteiro/carteiro/docs"
)

// documentURL names the document inside the schema compiler; it is never
// fetched (the compiler has no loader for it, and every $ref is internal).
const documentURL = "mem:///openapi.json"

// rateLimitHeaders are required on every response under the Product server
// path, documented or not (D13: "every response, errors included").
var rateLimitHeaders = []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"}

// Checker validates responses against the API description. It is safe for
// concurrent use once loaded.
type Checker struct {
	routes []*route
	// envelope is the error envelope schema, for answers of unknown routes.
	envelope *jsonschema.Schema
	// productPrefix is the path of the document's top-level server
	// (/v1/product): routes under it carry the Product headers.
	productPrefix string
}

// Load reads docs/openapi.yaml, validates it as OpenAPI 3.1 and prepares a
// Checker for its routes.
func Load() (*Checker, error) {
	jsonDoc, err := docs.OpenAPIJSON()
	if err != nil {
		return nil, fmt.Errorf("apicheck: %w", err)
	}
	return load(docs.OpenAPIYAML(), jsonDoc)
}

// load builds a Checker from one document in two encodings: yamlDoc for the
// OpenAPI model and its validation, jsonDoc (the same content as JSON, which is
// also valid YAML) for the schemas.
func load(yamlDoc, jsonDoc []byte) (*Checker, error) {
	doc, err := parseDocument(yamlDoc)
	if err != nil {
		return nil, err
	}
	compiler, err := newCompiler(jsonDoc)
	if err != nil {
		return nil, err
	}
	envelope, err := compiler.Compile(documentURL + "#/components/schemas/ErrorEnvelope")
	if err != nil {
		return nil, fmt.Errorf("apicheck: compile the error envelope: %w", err)
	}
	c := &Checker{envelope: envelope}
	if c.productPrefix, err = serverPath(doc.Servers); err != nil {
		return nil, fmt.Errorf("apicheck: top-level servers: %w", err)
	}
	if c.routes, err = buildRoutes(doc, compiler); err != nil {
		return nil, err
	}
	return c, nil
}

// parseDocument loads and validates an OpenAPI document. Only 3.1 is accepted,
// since the schemas use 3.1 forms (type arrays for null) that 3.0 reads
// differently.
func parseDocument(data []byte) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("apicheck: load OpenAPI document: %w", err)
	}
	if !doc.IsOpenAPI31OrLater() || doc.IsOpenAPI32OrLater() {
		return nil, fmt.Errorf("apicheck: document is OpenAPI %q, want 3.1", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("apicheck: invalid OpenAPI 3.1 document: %w", err)
	}
	return doc, nil
}

// newCompiler prepares a JSON Schema 2020-12 compiler holding the document.
// Formats (uuid, date-time) are asserted: a malformed id or timestamp is a
// contract break worth failing on, though the specification makes formats
// annotations by default.
func newCompiler(jsonDoc []byte) (*jsonschema.Compiler, error) {
	value, err := jsonschema.UnmarshalJSON(strings.NewReader(string(jsonDoc)))
	if err != nil {
		return nil, fmt.Errorf("apicheck: parse JSON document: %w", err)
	}
	compiler := jsonschema.NewCompiler()
	compiler.DefaultDraft(jsonschema.Draft2020)
	compiler.AssertFormat()
	if err := compiler.AddResource(documentURL, value); err != nil {
		return nil, fmt.Errorf("apicheck: add document to the schema compiler: %w", err)
	}
	return compiler, nil
}

// Operations lists every documented operation, ordered by path then method,
// so that a test can walk the route table.
func (c *Checker) Operations() []Operation {
	ops := make([]Operation, 0, len(c.routes))
	for _, r := range c.routes {
		ops = append(ops, r.op)
	}
	slices.SortFunc(ops, func(a, b Operation) int {
		if n := strings.Compare(a.Path, b.Path); n != 0 {
			return n
		}
		return strings.Compare(a.Method, b.Method)
	})
	return ops
}
