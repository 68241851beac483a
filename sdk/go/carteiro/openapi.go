package carteiro

import (
	"context"
	"encoding/json"
	"net/http"
)

// OpenAPIDocument is GET /openapi.json: the server's own description of
// this API (OpenAPI 3.1), as JSON.
func (c *Client) OpenAPIDocument(ctx context.Context) (json.RawMessage, error) {
	var out json.RawMessage
	err := c.do(ctx, call{method: http.MethodGet, path: "/openapi.json", idempotent: true}, &out)
	return out, err
}
