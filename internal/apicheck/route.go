package apicheck

import (
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Operation is one documented method on one path.
type Operation struct {
	// Method is the HTTP method in upper case, such as "GET".
	Method string
	// Path is the full path template as the server sees it, server prefix
	// included: "/v1/product/domains/{id}", "/healthz".
	Path string
	// ID is the operationId, such as "getDomain".
	ID string
	// NeedsAuth is true when every security requirement of the operation
	// names a scheme, i.e. a request without credentials must be refused.
	// It is false for public routes and for optional authentication
	// (/metrics asks for its token only when one is configured, D58).
	NeedsAuth bool
}

// Fill returns the operation's path with every {parameter} replaced by value,
// for requests that only need some value there (an unknown id, say).
func (o Operation) Fill(value string) string {
	segs := strings.Split(o.Path, "/")
	for i, s := range segs {
		if isParam(s) {
			segs[i] = value
		}
	}
	return strings.Join(segs, "/")
}

// route is an Operation with what is needed to match and check it.
type route struct {
	op        Operation
	segments  []string
	responses map[string]*response // by status key: "200", "4XX" or "default"
}

func isParam(segment string) bool {
	return len(segment) > 2 && segment[0] == '{' && segment[len(segment)-1] == '}'
}

// buildRoutes makes one route per documented operation, compiling every
// response schema up front so that a broken schema fails Load, not a test.
func buildRoutes(doc *openapi3.T, compiler *jsonschema.Compiler) ([]*route, error) {
	var routes []*route
	seen := map[string]string{} // "METHOD full path" -> document path, to catch collisions
	for _, tmpl := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(tmpl)
		servers := item.Servers
		if len(servers) == 0 {
			servers = doc.Servers
		}
		prefix, err := serverPath(servers)
		if err != nil {
			return nil, fmt.Errorf("apicheck: servers of %s: %w", tmpl, err)
		}
		full := prefix + tmpl
		for method, op := range item.Operations() {
			key := method + " " + full
			if other, dup := seen[key]; dup {
				return nil, fmt.Errorf("apicheck: %s is documented twice (%s and %s)", key, other, tmpl)
			}
			seen[key] = tmpl
			pointer := "#/paths/" + escapePointer(tmpl) + "/" + strings.ToLower(method)
			responses, err := compileResponses(compiler, pointer, op.Responses)
			if err != nil {
				return nil, fmt.Errorf("apicheck: %s: %w", key, err)
			}
			routes = append(routes, &route{
				op: Operation{
					Method:    method,
					Path:      full,
					ID:        op.OperationID,
					NeedsAuth: needsAuth(doc.Security, op.Security),
				},
				segments:  strings.Split(full, "/"),
				responses: responses,
			})
		}
	}
	return routes, nil
}

// needsAuth applies the operation's security over the document's: an empty
// requirement ({}) among the alternatives makes credentials optional.
func needsAuth(docSecurity openapi3.SecurityRequirements, opSecurity *openapi3.SecurityRequirements) bool {
	reqs := docSecurity
	if opSecurity != nil {
		reqs = *opSecurity
	}
	return len(reqs) > 0 && !slices.ContainsFunc(reqs, func(r openapi3.SecurityRequirement) bool { return len(r) == 0 })
}

// serverPath is the path part of the servers' URLs, without a trailing slash
// ("/v1/product", or "" for the root). Servers are alternatives for the same
// routes, so they must agree on the path; variables are not supported.
func serverPath(servers openapi3.Servers) (string, error) {
	if len(servers) == 0 {
		return "", nil // OpenAPI's default server is "/"
	}
	var path string
	for i, s := range servers {
		if strings.Contains(s.URL, "{") {
			return "", fmt.Errorf("server URL %q has variables, which apicheck does not expand", s.URL)
		}
		u, err := url.Parse(s.URL)
		if err != nil {
			return "", fmt.Errorf("server URL %q: %w", s.URL, err)
		}
		p := strings.TrimSuffix(u.Path, "/")
		if i > 0 && p != path {
			return "", fmt.Errorf("servers disagree on the path: %q and %q", path, p)
		}
		path = p
	}
	return path, nil
}

// escapePointer escapes one JSON Pointer token (RFC 6901).
func escapePointer(token string) string {
	return strings.ReplaceAll(strings.ReplaceAll(token, "~", "~0"), "/", "~1")
}

// matches reports whether the request path's segments fit the template.
// A parameter matches one non-empty segment, as in net/http patterns.
func (r *route) matches(segs []string) bool {
	if len(segs) != len(r.segments) {
		return false
	}
	for i, s := range r.segments {
		if isParam(s) {
			if segs[i] == "" {
				return false
			}
		} else if s != segs[i] {
			return false
		}
	}
	return true
}

// moreSpecific reports whether a beats b for a path both match: at the first
// segment where they differ, a literal beats a parameter (so /senders/verify
// wins over /senders/{id}, as with net/http's most-specific-pattern rule).
func moreSpecific(a, b *route) bool {
	for i := range a.segments {
		pa, pb := isParam(a.segments[i]), isParam(b.segments[i])
		if pa != pb {
			return pb
		}
	}
	return false
}

// find returns the route for method and path. When none fits, allowed lists
// the methods documented for the path (empty when the path itself is
// unknown), which decides between 404 and 405. HEAD falls back to GET, as in
// net/http.
func (c *Checker) find(method, path string) (found *route, allowed []string) {
	segs := strings.Split(path, "/")
	lookFor := []string{method}
	if method == "HEAD" {
		lookFor = append(lookFor, "GET")
	}
	for _, m := range lookFor {
		for _, r := range c.routes {
			if r.op.Method != m || !r.matches(segs) {
				continue
			}
			if found == nil || moreSpecific(r, found) {
				found = r
			}
		}
		if found != nil {
			return found, nil
		}
	}
	for _, r := range c.routes {
		if r.matches(segs) && !slices.Contains(allowed, r.op.Method) {
			allowed = append(allowed, r.op.Method)
		}
	}
	sort.Strings(allowed)
	return nil, allowed
}
