// Package apiclient calls Carteiro's HTTP API over loopback with kept-alive
// connections, enough of them for every benchmark client at once.
package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Client calls the API at Base.
type Client struct {
	Base string
	HTTP *http.Client
}

// New is a client for conns concurrent callers whose requests each give up
// after timeout. Responses are never asked compressed: the benchmarks time
// the service, not gzip.
func New(base string, conns int, timeout time.Duration) *Client {
	tr := &http.Transport{Proxy: nil, MaxIdleConns: conns, MaxIdleConnsPerHost: conns, IdleConnTimeout: time.Minute,
		DisableCompression: true}
	return &Client{Base: base, HTTP: &http.Client{Transport: tr, Timeout: timeout}}
}

// Do sends body (JSON, or nil for none) with key as the bearer and returns
// the status and the whole answer.
func (c *Client) Do(ctx context.Context, method, path, key string, body []byte) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, rd)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, nil, fmt.Errorf("%s %s: read answer: %w", method, path, err)
	}
	return resp.StatusCode, raw, nil
}

// Call sends body encoded as JSON (none when nil) and decodes a 2xx answer
// into out (when not nil). Any other status is an error that quotes the
// answer.
func (c *Client) Call(ctx context.Context, method, path, key string, body, out any) error {
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return fmt.Errorf("encode %s %s: %w", method, path, err)
		}
	}
	status, answer, err := c.Do(ctx, method, path, key, raw)
	if err != nil {
		return err
	}
	if status < 200 || status > 299 {
		return fmt.Errorf("%s %s: status %d: %.300s", method, path, status, answer)
	}
	if out != nil {
		if err := json.Unmarshal(answer, out); err != nil {
			return fmt.Errorf("%s %s: decode answer: %w", method, path, err)
		}
	}
	return nil
}

// CreateDomain registers name (POST /domains) and returns its id.
func (c *Client) CreateDomain(ctx context.Context, key, name string) (string, error) {
	var out struct {
		ID string `json:"id"`
	}
	if err := c.Call(ctx, http.MethodPost, "/v1/product/domains", key, map[string]string{"name": name}, &out); err != nil {
		return "", fmt.Errorf("create domain: %w", err)
	}
	return out.ID, nil
}
