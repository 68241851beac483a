package apicheck

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// ResponseError lists every way one response breaks the API description.
type ResponseError struct {
	// Method and Path are the request's.
	Method string
	Path   string
	// Route is the matched path template, "" when no operation matched.
	Route  string
	Status int
	// Problems are the individual findings, one sentence each.
	Problems []string
}

func (e *ResponseError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "apicheck: %s %s", e.Method, e.Path)
	if e.Route != "" && e.Route != e.Path {
		fmt.Fprintf(&b, " (route %s)", e.Route)
	} else if e.Route == "" {
		b.WriteString(" (no documented operation)")
	}
	fmt.Fprintf(&b, " answered %d, against docs/openapi.yaml:", e.Status)
	for _, p := range e.Problems {
		b.WriteString("\n  - ")
		b.WriteString(p)
	}
	return b.String()
}

// CheckResponse reports, as a *ResponseError, every way a response to req
// breaks the description: a status the operation does not document, a body
// that fails the response schema (missing, extra or mistyped fields), an
// undocumented Content-Type, a missing or malformed required header, and on
// any path under /v1/product a missing X-RateLimit-* header (D13). Requests
// that match no operation must answer an error envelope: 404 ROUTE_NOT_FOUND
// for an unknown path, 405 METHOD_NOT_ALLOWED with Allow for a known path
// (D11). It returns nil when the response conforms.
func (c *Checker) CheckResponse(req *http.Request, status int, header http.Header, body []byte) error {
	path := req.URL.Path
	found, allowed := c.find(req.Method, path)
	var problems []string
	documented := map[string]bool{}
	if found == nil {
		problems = c.checkUnrouted(allowed, status, header, body)
	} else {
		problems = checkRouted(found, req.Method, status, header, body, documented)
	}
	if c.isProduct(path) {
		for _, name := range rateLimitHeaders {
			if !documented[http.CanonicalHeaderKey(name)] {
				problems = append(problems, checkRateLimitHeader(name, header)...)
			}
		}
	}
	if len(problems) == 0 {
		return nil
	}
	e := &ResponseError{Method: req.Method, Path: path, Status: status, Problems: problems}
	if found != nil {
		e.Route = found.op.Path
	}
	return e
}

func (c *Checker) isProduct(path string) bool {
	return path == c.productPrefix || strings.HasPrefix(path, c.productPrefix+"/")
}

// checkRouted checks a response of a documented operation. It records in
// documented the (canonical) names of the headers the response documents.
func checkRouted(r *route, method string, status int, header http.Header, body []byte, documented map[string]bool) []string {
	resp := r.responseFor(status)
	if resp == nil {
		return []string{fmt.Sprintf("status %d is not documented for %s %s (documented: %s)",
			status, r.op.Method, r.op.Path, r.documentedStatuses())}
	}
	var problems []string
	for _, h := range resp.headers {
		documented[http.CanonicalHeaderKey(h.name)] = true
		problems = append(problems, checkHeader(h, header)...)
	}
	if method == http.MethodHead {
		if len(body) > 0 {
			problems = append(problems, fmt.Sprintf("a HEAD answer carries a body of %d bytes", len(body)))
		}
		return problems
	}
	return append(problems, checkBody(resp, header, body)...)
}

func checkHeader(h headerSpec, header http.Header) []string {
	values := header.Values(h.name)
	if len(values) == 0 {
		if h.required {
			return []string{fmt.Sprintf("required header %s is missing", h.name)}
		}
		return nil
	}
	if len(values) > 1 {
		return []string{fmt.Sprintf("header %s is sent %d times", h.name, len(values))}
	}
	if h.schema == nil {
		return nil
	}
	var value any = values[0]
	if h.typed {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(values[0]))
		if err != nil {
			return []string{fmt.Sprintf("header %s: %q is not of the documented type", h.name, values[0])}
		}
		value = v
	}
	return describe("header "+h.name, h.schema.Validate(value))
}

// checkRateLimitHeader holds a Product response whose documentation forgot
// the X-RateLimit-* headers to D13 all the same: present, a whole number.
func checkRateLimitHeader(name string, header http.Header) []string {
	v := header.Get(name)
	if v == "" {
		return []string{fmt.Sprintf("required header %s is missing (D13: every Product response carries it)", name)}
	}
	if _, err := strconv.ParseUint(v, 10, 63); err != nil {
		return []string{fmt.Sprintf("header %s: %q is not a non-negative integer", name, v)}
	}
	return nil
}

func checkBody(resp *response, header http.Header, body []byte) []string {
	if len(resp.content) == 0 {
		if len(body) > 0 {
			return []string{fmt.Sprintf("the response documents no body, but %d bytes came", len(body))}
		}
		return nil
	}
	contentType := header.Get("Content-Type")
	if contentType == "" {
		return []string{fmt.Sprintf("Content-Type is missing (documented: %s)", mediaTypes(resp))}
	}
	mediaType, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return []string{fmt.Sprintf("Content-Type %q: %v", contentType, err)}
	}
	schema, ok := resp.content[mediaType]
	if !ok {
		// OpenAPI allows media type ranges; the most specific one applies
		// (an attachment route documents "*/*": its type is the part's).
		if major, _, found := strings.Cut(mediaType, "/"); found {
			if schema, ok = resp.content[major+"/*"]; !ok {
				schema, ok = resp.content["*/*"]
			}
		}
	}
	if !ok {
		return []string{fmt.Sprintf("Content-Type %s is not documented (documented: %s)", mediaType, mediaTypes(resp))}
	}
	if schema == nil {
		return nil
	}
	var value any = string(body)
	if isJSON(mediaType) {
		if len(body) == 0 {
			return []string{"the body is empty, want a JSON document"}
		}
		if value, err = jsonschema.UnmarshalJSON(bytes.NewReader(body)); err != nil {
			return []string{fmt.Sprintf("the body is not JSON: %v", err)}
		}
	}
	return describe("body", schema.Validate(value))
}

func isJSON(mediaType string) bool {
	return mediaType == "application/json" || strings.HasSuffix(mediaType, "+json")
}

func mediaTypes(resp *response) string {
	types := make([]string, 0, len(resp.content))
	for t := range resp.content {
		types = append(types, t)
	}
	slices.Sort(types)
	return strings.Join(types, ", ")
}

// checkUnrouted checks the answer to a request no operation documents: it
// must be an error envelope, 404 ROUTE_NOT_FOUND for an unknown path and 405
// METHOD_NOT_ALLOWED with an Allow header when the path has other methods
// (D11). Other errors (401 before routing, 429, 5xx) need only the envelope.
func (c *Checker) checkUnrouted(allowed []string, status int, header http.Header, body []byte) []string {
	var problems []string
	if status < 400 {
		problems = append(problems, fmt.Sprintf("no documented operation matches, yet the answer is %d, not an error", status))
	}
	wantCode := ""
	switch {
	case status == http.StatusMethodNotAllowed && len(allowed) == 0:
		problems = append(problems, "405 for a path no route has; want 404 ROUTE_NOT_FOUND")
	case status == http.StatusMethodNotAllowed:
		wantCode = "METHOD_NOT_ALLOWED"
		problems = append(problems, checkAllow(allowed, header)...)
	case status == http.StatusNotFound && len(allowed) > 0:
		problems = append(problems, fmt.Sprintf("404 for a path documented for %s; want 405 METHOD_NOT_ALLOWED", strings.Join(allowed, ", ")))
	case status == http.StatusNotFound:
		wantCode = "ROUTE_NOT_FOUND"
	}
	envelope := &response{content: map[string]*jsonschema.Schema{"application/json": c.envelope}}
	bodyProblems := checkBody(envelope, header, body)
	problems = append(problems, bodyProblems...)
	if wantCode != "" && len(bodyProblems) == 0 {
		if code := errorCode(body); code != wantCode {
			problems = append(problems, fmt.Sprintf("error code %s, want %s", code, wantCode))
		}
	}
	return problems
}

// checkAllow wants the Allow header of a 405 to name every documented method.
func checkAllow(allowed []string, header http.Header) []string {
	v := header.Get("Allow")
	if v == "" {
		return []string{"a 405 without an Allow header (D11)"}
	}
	var listed []string
	for _, m := range strings.Split(v, ",") {
		listed = append(listed, strings.ToUpper(strings.TrimSpace(m)))
	}
	var problems []string
	for _, m := range allowed {
		if !slices.Contains(listed, m) {
			problems = append(problems, fmt.Sprintf("Allow %q does not name the documented method %s", v, m))
		}
	}
	return problems
}

// errorCode reads error.code of an envelope that already passed its schema.
func errorCode(body []byte) string {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return ""
	}
	env, _ := v.(map[string]any)
	inner, _ := env["error"].(map[string]any)
	code, _ := inner["code"].(string)
	return code
}

// describe turns a schema validation error into one sentence per failed
// keyword, located by JSON pointer: "body at /records/0/ttl: got string, want
// integer". The leaves of the error tree are the actual failures; the inner
// nodes only say which subschema (allOf, $ref) contained them.
func describe(what string, err error) []string {
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{fmt.Sprintf("%s: %v", what, err)}
	}
	printer := message.NewPrinter(language.English)
	var out []string
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			at := ""
			if len(e.InstanceLocation) > 0 {
				at = " at /" + strings.Join(e.InstanceLocation, "/")
			}
			out = append(out, fmt.Sprintf("%s%s: %s", what, at, e.ErrorKind.LocalizedString(printer)))
			return
		}
		for _, cause := range e.Causes {
			walk(cause)
		}
	}
	walk(ve)
	return out
}
