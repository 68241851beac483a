package apicheck

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/docs"
)

// loadDocument parses and validates docs/openapi.yaml with kin-openapi's own
// OpenAPI 3.1 document validation.
func loadDocument(t *testing.T) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(docs.OpenAPIYAML())
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("docs/openapi.yaml is not a valid OpenAPI document: %v", err)
	}
	return doc
}

func TestDocumentIsValidOpenAPI31(t *testing.T) {
	t.Parallel()
	doc := loadDocument(t)
	if doc.OpenAPI != "3.1.0" || !doc.IsOpenAPI31OrLater() {
		t.Errorf("openapi is %q, want 3.1.0", doc.OpenAPI)
	}
	// The served JSON must be the same document, valid in its own right.
	jsonDoc, err := docs.OpenAPIJSON()
	if err != nil {
		t.Fatal(err)
	}
	fromJSON, err := openapi3.NewLoader().LoadFromData(jsonDoc)
	if err != nil {
		t.Fatal(err)
	}
	if err := fromJSON.Validate(context.Background()); err != nil {
		t.Fatalf("openapi.json is not valid: %v", err)
	}
	a, _ := json.Marshal(doc)
	b, _ := json.Marshal(fromJSON)
	if string(a) != string(b) {
		t.Error("openapi.json and openapi.yaml load as different documents")
	}
}

// minimalDocument is a valid OpenAPI 3.1 document with one route, in JSON
// (which is YAML too); edit changes it before it is loaded.
func minimalDocument(t *testing.T, edit func(obj)) []byte {
	t.Helper()
	doc := obj{
		"openapi": "3.1.0",
		"info":    obj{"title": "t", "version": "1"},
		"servers": []obj{{"url": "/v1/product"}},
		"paths": obj{
			"/things/{id}": obj{"get": obj{
				"operationId": "getThing",
				"parameters":  []obj{{"name": "id", "in": "path", "required": true, "schema": obj{"type": "string"}}},
				"responses": obj{"200": obj{
					"description": "ok",
					"content":     obj{"application/json": obj{"schema": obj{"type": "object"}}},
				}},
			}},
		},
		"components": obj{"schemas": obj{"ErrorEnvelope": obj{"type": "object"}}},
	}
	if edit != nil {
		edit(doc)
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLoadRefusesInvalidDocuments(t *testing.T) {
	t.Parallel()
	if _, err := load(minimalDocument(t, nil), minimalDocument(t, nil)); err != nil {
		t.Fatalf("the minimal document itself is refused: %v", err)
	}
	getThing := func(d obj) obj { return d["paths"].(obj)["/things/{id}"].(obj)["get"].(obj) }
	cases := map[string]struct {
		edit func(obj)
		want string
	}{
		"OpenAPI 3.0": {func(d obj) { d["openapi"] = "3.0.3" }, "want 3.1"},
		"response without description": {func(d obj) {
			delete(getThing(d)["responses"].(obj)["200"].(obj), "description")
		}, "description"},
		"unknown schema type": {func(d obj) {
			getThing(d)["responses"].(obj)["200"].(obj)["content"].(obj)["application/json"].(obj)["schema"] = obj{"type": "strnig"}
		}, "strnig"},
		"dangling reference": {func(d obj) {
			getThing(d)["responses"].(obj)["200"].(obj)["content"].(obj)["application/json"].(obj)["schema"] = obj{"$ref": "#/components/schemas/Nope"}
		}, "Nope"},
		"undeclared path parameter": {func(d obj) { delete(getThing(d), "parameters") }, "path parameters"},
		"no error envelope":         {func(d obj) { d["components"] = obj{"schemas": obj{}} }, "ErrorEnvelope"},
		"server with variables": {func(d obj) {
			d["servers"] = []obj{{"url": "/{version}", "variables": obj{"version": obj{"default": "v1"}}}}
		}, "variables"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			doc := minimalDocument(t, tc.edit)
			_, err := load(doc, doc)
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

// The conventions below keep the description useful as later issues add
// routes: each is cheap to forget when copying a path by hand.

func TestResponseObjectsAreClosed(t *testing.T) {
	t.Parallel()
	for name, ref := range loadDocument(t).Components.Schemas {
		s := ref.Value
		if !s.Type.Is("object") || len(s.Properties) == 0 {
			continue
		}
		if ap := s.AdditionalProperties.Has; ap == nil || *ap {
			t.Errorf("components/schemas/%s: want additionalProperties: false so misnamed fields are caught", name)
		}
	}
}

func TestOperationsAreDescribed(t *testing.T) {
	t.Parallel()
	doc := loadDocument(t)
	declared := map[string]bool{}
	for _, tag := range doc.Tags {
		declared[tag.Name] = true
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			where := method + " " + path
			if op.OperationID == "" {
				t.Errorf("%s: no operationId", where)
			}
			if len(op.Tags) != 1 || !declared[op.Tags[0]] {
				t.Errorf("%s: want exactly one declared tag (one per resource), got %q", where, op.Tags)
			}
			if op.Summary == "" {
				t.Errorf("%s: no summary", where)
			}
		}
	}
}

// Every Product response carries the rate-limit headers (D13), the language
// (D10) and the request id; every Product operation can answer the errors any
// request may meet (D11).
func TestProductResponsesDocumentTheCommonParts(t *testing.T) {
	t.Parallel()
	doc := loadDocument(t)
	c := loadChecker(t)
	headers := []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Content-Language", "X-Request-Id"}
	for _, op := range c.Operations() {
		if !c.isProduct(op.Path) {
			continue
		}
		template := strings.TrimPrefix(op.Path, c.productPrefix)
		item := doc.Paths.Value(template)
		operation := item.GetOperation(op.Method)
		where := op.Method + " " + op.Path
		if !slices.ContainsFunc(append(item.Parameters, operation.Parameters...), func(p *openapi3.ParameterRef) bool {
			return p.Value.In == "header" && p.Value.Name == "Accept-Language"
		}) {
			t.Errorf("%s: Accept-Language parameter not documented (D10)", where)
		}
		want := []string{"429", "500", "503"}
		if op.NeedsAuth {
			want = append(want, "401", "403")
		}
		for _, code := range want {
			if operation.Responses.Value(code) == nil {
				t.Errorf("%s: response %s not documented", where, code)
			}
		}
		for code, resp := range operation.Responses.Map() {
			for _, name := range headers {
				h := resp.Value.Headers[name]
				if h == nil || !h.Value.Required {
					t.Errorf("%s %s: header %s not documented as required", where, code, name)
				}
			}
			if code == "429" && resp.Value.Headers["Retry-After"] == nil {
				t.Errorf("%s 429: Retry-After not documented (D11)", where)
			}
		}
	}
}

// The error codes of the document and of the root package must agree (D11).
func TestErrorCodesMatchTheDomain(t *testing.T) {
	t.Parallel()
	var documented []string
	for _, v := range loadDocument(t).Components.Schemas["ErrorCode"].Value.Enum {
		documented = append(documented, v.(string))
	}
	codes := []string{
		carteiro.CodeInvalidJSON, carteiro.CodeValidation, carteiro.CodeMissingAPIKey,
		carteiro.CodeInvalidAPIKey, carteiro.CodeForbidden, carteiro.CodeReauthRequired,
		carteiro.CodeReauthFailed, carteiro.CodeDomainNotVerified, carteiro.CodeNotFound,
		carteiro.CodeRouteNotFound, carteiro.CodeMethodNotAllowed, carteiro.CodeConflict,
		carteiro.CodeInvalidState, carteiro.CodeIdempotencyReused, carteiro.CodeTokenExpired,
		carteiro.CodePayloadTooLarge, carteiro.CodeRateLimited, carteiro.CodeWarmupQuotaExceeded,
		carteiro.CodeInternal, carteiro.CodeServiceUnavailable, carteiro.CodeTemplateRenderError,
		carteiro.CodeTemplateSyntaxError,
	}
	slices.Sort(documented)
	slices.Sort(codes)
	if !slices.Equal(documented, codes) {
		t.Errorf("ErrorCode enum %v\ndiffers from the codes of error.go %v", documented, codes)
	}
}

// The errors that depend on what a request carries (D11): a body can be
// broken (400) or invalid (422), an id unknown (404); and every route that
// needs a key answers other methods (405) and oversized bodies (413).
func TestOperationsListTheErrorsOfWhatTheyRead(t *testing.T) {
	t.Parallel()
	doc := loadDocument(t)
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			var want []string
			if op.RequestBody != nil {
				want = append(want, "400", "422")
			}
			if strings.Contains(path, "{") {
				want = append(want, "404")
			}
			if needsAuth(doc.Security, op.Security) {
				want = append(want, "405", "413")
			}
			for _, code := range want {
				if op.Responses.Value(code) == nil {
					t.Errorf("%s %s: response %s not documented", method, path, code)
				}
			}
		}
	}
}
