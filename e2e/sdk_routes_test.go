package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/carteiro/carteiro/internal/apicheck"
	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/sdk/go/carteiro"
)

// sdkMethods maps every product route (METHOD and path below /v1/product,
// as the description writes it) to the Go SDK method that calls it: a
// method of *carteiro.Client, or "Service.Method" of one of its services.
// Routes are matched by method and path, not operationId, so renaming an
// operation does not break the SDK (issue 29). A route added to the
// description without an entry here fails TestSDKCoversEveryRoute.
var sdkMethods = map[string]string{
	"GET /openapi.json": "OpenAPIDocument",

	"POST /emails":             "Emails.Send",
	"GET /emails":              "Emails.List",
	"POST /emails/batch":       "Emails.SendBatch",
	"GET /emails/tags":         "Emails.Tags",
	"GET /emails/{id}":         "Emails.Get",
	"GET /emails/{id}/events":  "Emails.Events",
	"POST /emails/{id}/cancel": "Emails.Cancel",
	"POST /emails/{id}/resend": "Emails.Resend",

	"POST /domains":              "Domains.Create",
	"GET /domains":               "Domains.List",
	"GET /domains/{id}":          "Domains.Get",
	"DELETE /domains/{id}":       "Domains.Delete",
	"POST /domains/{id}/verify":  "Domains.Verify",
	"POST /domains/{id}/health":  "Domains.Health",
	"GET /domains/{id}/warmup":   "Domains.Warmup",
	"POST /domains/{id}/inbound": "Domains.SetInbound",

	"POST /senders":        "Senders.Create",
	"GET /senders":         "Senders.List",
	"POST /senders/verify": "Senders.Verify",
	"DELETE /senders/{id}": "Senders.Delete",

	"POST /webhooks":                    "Webhooks.Create",
	"GET /webhooks":                     "Webhooks.List",
	"GET /webhooks/{id}":                "Webhooks.Get",
	"PUT /webhooks/{id}":                "Webhooks.Update",
	"PATCH /webhooks/{id}":              "Webhooks.SetStatus",
	"DELETE /webhooks/{id}":             "Webhooks.Delete",
	"GET /webhooks/{id}/deliveries":     "Webhooks.Deliveries",
	"POST /webhooks/{id}/test":          "Webhooks.Test",
	"POST /webhooks/{id}/rotate-secret": "Webhooks.RotateSecret",

	"GET /stats": "Stats.Get",

	"POST /audiences":                             "Audiences.Create",
	"GET /audiences":                              "Audiences.List",
	"GET /audiences/{id}":                         "Audiences.Get",
	"PUT /audiences/{id}":                         "Audiences.Update",
	"DELETE /audiences/{id}":                      "Audiences.Delete",
	"POST /audiences/{id}/contacts":               "Contacts.Create",
	"GET /audiences/{id}/contacts":                "Contacts.List",
	"POST /audiences/{id}/contacts/bulk":          "Contacts.Import",
	"PUT /audiences/{id}/contacts/{contactId}":    "Contacts.Update",
	"DELETE /audiences/{id}/contacts/{contactId}": "Contacts.Delete",

	"POST /broadcasts":             "Broadcasts.Create",
	"GET /broadcasts":              "Broadcasts.List",
	"GET /broadcasts/{id}":         "Broadcasts.Get",
	"POST /broadcasts/{id}/send":   "Broadcasts.Send",
	"POST /broadcasts/{id}/cancel": "Broadcasts.Cancel",

	"POST /templates":             "Templates.Create",
	"GET /templates":              "Templates.List",
	"GET /templates/{id}":         "Templates.Get",
	"PATCH /templates/{id}":       "Templates.Update",
	"DELETE /templates/{id}":      "Templates.Delete",
	"POST /templates/preview":     "Templates.Preview",
	"POST /templates/format":      "Templates.Format",
	"POST /templates/test-render": "Templates.TestRender",

	"GET /suppressions":                  "Suppressions.List",
	"POST /suppressions":                 "Suppressions.Create",
	"GET /suppressions/{id}":             "Suppressions.Get",
	"DELETE /suppressions/{id}":          "Suppressions.Delete",
	"POST /suppressions/{id}/reactivate": "Suppressions.Reactivate",

	"POST /privacy/erase": "Privacy.Erase",

	"GET /inbound-emails":                                 "InboundEmails.List",
	"GET /inbound-emails/{id}":                            "InboundEmails.Get",
	"GET /inbound-emails/{id}/raw":                        "InboundEmails.Raw",
	"GET /inbound-emails/{id}/attachments/{attachmentId}": "InboundEmails.Attachment",
	"DELETE /inbound-emails/{id}":                         "InboundEmails.Delete",
}

// productRoutes returns "METHOD /path" of every operation of a served
// description (OpenAPI JSON) that lives under /v1/product: the path items
// with servers of their own (operations, tracking, unsubscribe pages) are
// not product routes.
func productRoutes(t *testing.T, doc []byte) []string {
	t.Helper()
	var d struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	testserver.Must(t, json.Unmarshal(doc, &d) == nil && len(d.Paths) > 0, "the description has no paths")
	var routes []string
	for path, item := range d.Paths {
		if _, own := item["servers"]; own {
			continue
		}
		for method := range item {
			switch method {
			case "get", "put", "post", "delete", "patch", "head", "options", "trace":
				routes = append(routes, strings.ToUpper(method)+" "+path)
			}
		}
	}
	slices.Sort(routes)
	return routes
}

// sdkMethodExists tells whether name ("Method" or "Service.Method") is a
// method of the client.
func sdkMethodExists(c *carteiro.Client, name string) bool {
	v := reflect.ValueOf(c)
	if service, method, ok := strings.Cut(name, "."); ok {
		field := v.Elem().FieldByName(service)
		return field.IsValid() && field.MethodByName(method).IsValid()
	}
	return v.MethodByName(name).IsValid()
}

// TestSDKCoversEveryRoute: every product route of the description the
// server serves, and of docs/openapi.yaml, has a Go SDK method, and the
// table names no route or method that does not exist.
func TestSDKCoversEveryRoute(t *testing.T) {
	t.Parallel()
	ts := testserver.StartServer(t, testserver.SQLite, nil)
	client := carteiro.NewClient(ts.LiveKey, carteiro.WithBaseURL(ts.URL))
	served, err := client.OpenAPIDocument(context.Background())
	testserver.Must(t, err == nil, "GET /openapi.json: %v", err)
	routes := productRoutes(t, served)

	checker, err := apicheck.Load()
	testserver.Must(t, err == nil, "load docs/openapi.yaml: %v", err)
	var documented []string
	for _, op := range checker.Operations() {
		if rest, ok := strings.CutPrefix(op.Path, "/v1/product"); ok {
			documented = append(documented, op.Method+" "+rest)
		}
	}
	slices.Sort(documented)
	testserver.Must(t, slices.Equal(routes, documented), "served %v\ndocumented %v", routes, documented)

	for _, r := range routes {
		name, ok := sdkMethods[r]
		if !ok {
			t.Errorf("%s has no Go SDK method: add one to sdk/go/carteiro and to sdkMethods", r)
			continue
		}
		if !sdkMethodExists(client, name) {
			t.Errorf("%s: sdkMethods names %s, which the SDK does not have", r, name)
		}
	}
	for r := range sdkMethods {
		if !slices.Contains(routes, r) {
			t.Errorf("sdkMethods lists %s, which the description does not have", r)
		}
	}
}

// routeRecorder is an http.RoundTripper that notes which product route
// each request of the SDK hit and checks every answer against
// docs/openapi.yaml, as testserver.Do does for raw requests.
type routeRecorder struct {
	t       *testing.T
	checker *apicheck.Checker
	mu      sync.Mutex
	hit     map[string]int
}

func newRouteRecorder(t *testing.T) *routeRecorder {
	checker, err := apicheck.Load()
	testserver.Must(t, err == nil, "load docs/openapi.yaml: %v", err)
	return &routeRecorder{t: t, checker: checker, hit: map[string]int{}}
}

func (r *routeRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := readAndRestore(resp)
	if err != nil {
		return nil, err
	}
	if err := r.checker.CheckResponse(req, resp.StatusCode, resp.Header, body); err != nil {
		r.t.Errorf("SDK call %s %s: the answer does not match docs/openapi.yaml: %v\n%s", req.Method, req.URL.Path, err, body)
	}
	route := matchRoute(req.Method, strings.TrimPrefix(req.URL.Path, "/v1/product"))
	r.mu.Lock()
	r.hit[route]++
	r.mu.Unlock()
	return resp, nil
}

// missing lists the routes of sdkMethods no request hit.
func (r *routeRecorder) missing() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for route := range sdkMethods {
		if r.hit[route] == 0 {
			out = append(out, route)
		}
	}
	slices.Sort(out)
	return out
}

// matchRoute returns the sdkMethods key whose template matches, or the
// request itself when none does.
func matchRoute(method, path string) string {
	best := ""
	for route := range sdkMethods {
		m, tmpl, _ := strings.Cut(route, " ")
		if m != method || !templateMatches(tmpl, path) {
			continue
		}
		// A literal segment (/emails/tags) wins over a parameter (/emails/{id}).
		if best == "" || strings.Count(route, "{") < strings.Count(best, "{") {
			best = route
		}
	}
	if best == "" {
		return method + " " + path
	}
	return best
}

// templateMatches compares segment by segment; {name} matches any one.
func templateMatches(tmpl, path string) bool {
	want, got := strings.Split(tmpl, "/"), strings.Split(path, "/")
	if len(want) != len(got) {
		return false
	}
	for i := range want {
		if strings.HasPrefix(want[i], "{") {
			if got[i] == "" {
				return false
			}
		} else if want[i] != got[i] {
			return false
		}
	}
	return true
}

// readAndRestore reads a response body whole and puts it back for the
// SDK to read.
func readAndRestore(resp *http.Response) ([]byte, error) {
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return body, err
}
