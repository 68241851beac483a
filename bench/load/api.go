package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/carteiro/carteiro/bench/internal/apiclient"
)

// apiClient calls Carteiro's HTTP API with the live key over kept-alive
// connections, enough of them for every benchmark client at once.
type apiClient struct {
	*apiclient.Client
	key string
	// recipientDomains are the domains emails are sent to, in turn; none
	// means defaultRecipientDomain (the relay's sink takes any).
	recipientDomains []string
}

func newAPIClient(base, key string, clients int) *apiClient {
	return &apiClient{Client: apiclient.New(base, 2*clients, time.Minute), key: key}
}

// post sends body (already JSON) and returns the status and response body.
func (c *apiClient) post(ctx context.Context, path string, body []byte) (int, []byte, error) {
	return c.Do(ctx, http.MethodPost, path, c.key, body)
}

// postJSON sends v and decodes a response with status want into out.
func (c *apiClient) postJSON(ctx context.Context, path string, v any, want int, out any) error {
	var body []byte
	if v != nil {
		var err error
		if body, err = json.Marshal(v); err != nil {
			return err
		}
	}
	status, data, err := c.post(ctx, path, body)
	if err != nil {
		return err
	}
	if status != want {
		return fmt.Errorf("POST %s: status %d, want %d: %s", path, status, want, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("POST %s: decode: %w", path, err)
		}
	}
	return nil
}
