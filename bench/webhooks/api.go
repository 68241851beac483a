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

// apiClient calls the service's API over loopback HTTP with keep-alive
// connections enough for conns concurrent callers.
type apiClient struct {
	base string
	http *http.Client
}

func newAPIClient(base string, conns int) *apiClient {
	tr := &http.Transport{Proxy: nil, MaxIdleConns: conns, MaxIdleConnsPerHost: conns, IdleConnTimeout: time.Minute}
	return &apiClient{base: base, http: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
}

// call sends body (JSON) with key and decodes a 2xx answer into out (when
// not nil). Any other status is an error that quotes the body.
func (c *apiClient) call(ctx context.Context, method, path, key string, body, out any) error {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("encode %s %s: %w", method, path, err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: read answer: %w", method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("%s %s: status %d: %.300s", method, path, resp.StatusCode, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("%s %s: decode answer: %w", method, path, err)
		}
	}
	return nil
}

// allEventTypes is every webhook event type of section 6.
var allEventTypes = []string{"email.sent", "email.delivered", "email.bounced", "email.complained", "email.opened",
	"email.clicked", "email.failed", "email.suppressed", "email.delivery_delayed"}

// createWebhooks registers n webhooks subscribed to every event, webhook i
// at receiverURL/hook/i with a secret, so every delivery is signed as in
// production (D48). It returns their ids in order.
func createWebhooks(ctx context.Context, api *apiClient, key, receiverURL string, n int) ([]string, error) {
	ids := make([]string, n)
	for i := range n {
		var out struct {
			ID string `json:"id"`
		}
		body := map[string]any{"url": receiverURL + hookPath(i), "events": allEventTypes,
			"secret": fmt.Sprintf("bench-secret-%02d-0123456789", i)}
		if err := api.call(ctx, http.MethodPost, "/v1/product/webhooks", key, body, &out); err != nil {
			return nil, fmt.Errorf("register webhook %d: %w", i, err)
		}
		ids[i] = out.ID
	}
	return ids, nil
}

// setWebhookStatus is PATCH /webhooks/{id}: active or paused. Making a
// webhook active again queues what waited while it was paused (D50).
func setWebhookStatus(ctx context.Context, api *apiClient, key, id, status string) error {
	return api.call(ctx, http.MethodPatch, "/v1/product/webhooks/"+id, key, map[string]string{"status": status}, nil)
}
