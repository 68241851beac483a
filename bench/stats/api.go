package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
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

// get fetches path with key and returns the status and the whole body.
func (c *apiClient) get(ctx context.Context, path, key string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return 0, nil, fmt.Errorf("GET %s: %w", path, err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, nil, fmt.Errorf("GET %s: read answer: %w", path, err)
	}
	return resp.StatusCode, body, nil
}

// createDomain registers name (POST /domains) and returns its id.
func (c *apiClient) createDomain(ctx context.Context, key, name string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/v1/product/domains", strings.NewReader(`{"name":"`+name+`"}`))
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return "", fmt.Errorf("create domain: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", fmt.Errorf("create domain: %w", err)
	}
	var out struct {
		ID string `json:"id"`
	}
	if resp.StatusCode != http.StatusCreated || json.Unmarshal(raw, &out) != nil || out.ID == "" {
		return "", fmt.Errorf("create domain: status %d: %.300s", resp.StatusCode, raw)
	}
	return out.ID, nil
}
