package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// apiClient calls Carteiro's HTTP API with the live key over kept-alive
// connections, enough of them for every benchmark client at once.
type apiClient struct {
	base string
	key  string
	http *http.Client
	// recipientDomains are the domains emails are sent to, in turn; none
	// means defaultRecipientDomain (the relay's sink takes any).
	recipientDomains []string
}

func newAPIClient(base, key string, clients int) *apiClient {
	tr := &http.Transport{
		MaxIdleConns:        2 * clients,
		MaxIdleConnsPerHost: 2 * clients,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}
	return &apiClient{base: base, key: key, http: &http.Client{Transport: tr, Timeout: time.Minute}}
}

// post sends body (already JSON) and returns the status and response body.
func (c *apiClient) post(ctx context.Context, path string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, data, err
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
		return fmt.Errorf("POST %s: %w", path, err)
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
