package apicheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// response is one documented answer of an operation, its schemas compiled.
type response struct {
	headers []headerSpec
	// content maps each documented media type to its schema, nil when the
	// media type has none (any body of that type passes).
	content map[string]*jsonschema.Schema
}

// headerSpec is one documented response header.
type headerSpec struct {
	name     string
	required bool
	schema   *jsonschema.Schema
	// typed headers carry a JSON scalar (an integer, say) that is parsed
	// before validation; the others are validated as strings.
	typed bool
}

// compileResponses compiles the responses of the operation at pointer (a JSON
// Pointer fragment into the document). A response or header given by $ref is
// compiled from its component, where its schema actually is.
func compileResponses(compiler *jsonschema.Compiler, pointer string, responses *openapi3.Responses) (map[string]*response, error) {
	out := make(map[string]*response, responses.Len())
	for code, ref := range responses.Map() {
		base := pointer + "/responses/" + escapePointer(code)
		if ref.Ref != "" {
			base = ref.Ref
		}
		if !strings.HasPrefix(base, "#/") {
			return nil, fmt.Errorf("response %s: only references inside the document are supported, got %q", code, base)
		}
		resp, err := compileResponse(compiler, base, ref.Value)
		if err != nil {
			return nil, fmt.Errorf("response %s: %w", code, err)
		}
		out[code] = resp
	}
	return out, nil
}

func compileResponse(compiler *jsonschema.Compiler, base string, value *openapi3.Response) (*response, error) {
	resp := &response{content: map[string]*jsonschema.Schema{}}
	for name, ref := range value.Headers {
		// OpenAPI says a Content-Type response header is ignored; the
		// content map describes it.
		if strings.EqualFold(name, "Content-Type") || ref.Value == nil {
			continue
		}
		at := base + "/headers/" + escapePointer(name)
		if ref.Ref != "" {
			at = ref.Ref
		}
		spec := headerSpec{name: name, required: ref.Value.Required}
		if s := ref.Value.Schema; s != nil && s.Value != nil {
			schema, err := compile(compiler, at+"/schema")
			if err != nil {
				return nil, fmt.Errorf("header %s: %w", name, err)
			}
			spec.schema = schema
			spec.typed = s.Value.Type.Includes("integer") || s.Value.Type.Includes("number") || s.Value.Type.Includes("boolean")
		}
		resp.headers = append(resp.headers, spec)
	}
	for mediaType, media := range value.Content {
		if media.Schema == nil {
			resp.content[mediaType] = nil
			continue
		}
		schema, err := compile(compiler, base+"/content/"+escapePointer(mediaType)+"/schema")
		if err != nil {
			return nil, fmt.Errorf("content %s: %w", mediaType, err)
		}
		resp.content[mediaType] = schema
	}
	// Map order is random; sorted headers keep the problems' order stable.
	slices.SortFunc(resp.headers, func(a, b headerSpec) int { return strings.Compare(a.name, b.name) })
	return resp, nil
}

func compile(compiler *jsonschema.Compiler, fragment string) (*jsonschema.Schema, error) {
	schema, err := compiler.Compile(documentURL + fragment)
	if err != nil {
		return nil, fmt.Errorf("compile schema %s: %w", fragment, err)
	}
	return schema, nil
}

// responseFor picks the documented response for status the OpenAPI way: the
// exact code, then its range (4XX), then default.
func (r *route) responseFor(status int) *response {
	for _, key := range []string{fmt.Sprint(status), fmt.Sprintf("%dXX", status/100), "default"} {
		if resp, ok := r.responses[key]; ok {
			return resp
		}
	}
	return nil
}

// documentedStatuses lists the route's status keys in order, for messages.
func (r *route) documentedStatuses() string {
	keys := make([]string, 0, len(r.responses))
	for k := range r.responses {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}
