// Package carteiro is the Go client of the Carteiro API's product routes
// (/v1/product). A Client holds one API key; its services (Emails, Domains,
// Webhooks, ...) hold one typed method per route, each taking a
// context.Context:
//
//	client := carteiro.NewClient(os.Getenv("CARTEIRO_API_KEY"),
//		carteiro.WithBaseURL("https://mail.example.com"))
//	sent, err := client.Emails.Send(ctx, &carteiro.SendEmailRequest{
//		From: "Acme <hi@acme.example>", To: []string{"ana@example.com"},
//		Subject: "Hello", Text: "Hi Ana",
//	})
//
// An answer other than 2xx is a *Error (errors.As gives its code, field,
// status and request id). Sends carry an idempotency key the client makes up
// when the request has none, so the retries the client makes on 429 and 5xx
// (honouring Retry-After) can never send twice. Every list has an iterator
// (iter.Seq2) that follows the pages. Package webhook verifies the requests
// Carteiro sends to a webhook endpoint.
package carteiro

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Version is this SDK's version, sent in the User-Agent.
const Version = "0.1.0"

// productPrefix is where the product routes live (api-v1.md section 9).
const productPrefix = "/v1/product"

// DefaultBaseURL is the server `carteiro serve` starts on this machine.
const DefaultBaseURL = "http://127.0.0.1:8080"

// maxAnswer bounds how much of an answer is read: the largest lists are a
// few hundred items of a few KB.
const maxAnswer = 32 << 20

// ErrAnswerTooLarge is returned, rather than a cut answer, when an answer
// is larger than the client reads (32 MB, 1 GB for Raw and Attachment).
var ErrAnswerTooLarge = errors.New("the answer is larger than the client reads")

// Client calls the API with one key. It is safe for concurrent use.
type Client struct {
	baseURL    string
	key        string
	httpClient *http.Client
	retry      RetryPolicy
	userAgent  string
	language   string

	Emails        *EmailsService
	Domains       *DomainsService
	Senders       *SendersService
	Webhooks      *WebhooksService
	Stats         *StatsService
	Audiences     *AudiencesService
	Contacts      *ContactsService
	Broadcasts    *BroadcastsService
	Templates     *TemplatesService
	Suppressions  *SuppressionsService
	Privacy       *PrivacyService
	InboundEmails *InboundEmailsService
}

// Option configures a Client.
type Option func(*Client)

// WithBaseURL sets the server's address, such as https://mail.example.com
// (without /v1/product). The default is DefaultBaseURL.
func WithBaseURL(u string) Option {
	return func(c *Client) { c.baseURL = strings.TrimRight(u, "/") }
}

// WithHTTPClient sets the http.Client requests go through (timeouts,
// proxies, TLS). The default is a client with a 60 s timeout.
func WithHTTPClient(h *http.Client) Option {
	return func(c *Client) { c.httpClient = h }
}

// WithRetryPolicy replaces the default retries (DefaultRetryPolicy).
func WithRetryPolicy(p RetryPolicy) Option {
	return func(c *Client) { c.retry = p }
}

// WithUserAgent puts the application's name before the SDK's in the
// User-Agent header.
func WithUserAgent(ua string) Option {
	return func(c *Client) { c.userAgent = ua + " " + c.userAgent }
}

// WithLanguage sets Accept-Language (pt-BR, en or es), the language of
// error messages (D10). The server's default is pt-BR.
func WithLanguage(lang string) Option {
	return func(c *Client) { c.language = lang }
}

// NewClient returns a client for apiKey (svc_live_... or svc_test_...).
func NewClient(apiKey string, opts ...Option) *Client {
	c := &Client{
		baseURL:    DefaultBaseURL,
		key:        apiKey,
		httpClient: &http.Client{Timeout: 60 * time.Second},
		retry:      DefaultRetryPolicy,
		userAgent:  "carteiro-go/" + Version,
	}
	for _, o := range opts {
		o(c)
	}
	c.Emails = &EmailsService{c}
	c.Domains = &DomainsService{c}
	c.Senders = &SendersService{c}
	c.Webhooks = &WebhooksService{c}
	c.Stats = &StatsService{c}
	c.Audiences = &AudiencesService{c}
	c.Contacts = &ContactsService{c}
	c.Broadcasts = &BroadcastsService{c}
	c.Templates = &TemplatesService{c}
	c.Suppressions = &SuppressionsService{c}
	c.Privacy = &PrivacyService{c}
	c.InboundEmails = &InboundEmailsService{c}
	return c
}

// call is one API call: method, path below /v1/product, query, JSON body.
type call struct {
	method string
	path   string
	query  url.Values
	body   any
	// idempotencyKey is sent as Idempotency-Key; a call that has one may be
	// retried after a 5xx, since the server answers a repeat with the first
	// answer (D22).
	idempotencyKey string
	// idempotent says repeating the call has the effect of doing it once
	// (GET, PUT, DELETE, and the POSTs that set a state).
	idempotent bool
	// accept replaces application/json for routes that answer other media
	// (a received message, an attachment).
	accept string
	// maxAnswer replaces the default bound on the answer's size.
	maxAnswer int64
}

// do runs the call with retries and decodes a 2xx answer's JSON into out
// (nil to ignore it).
func (c *Client) do(ctx context.Context, cl call, out any) error {
	_, body, err := c.fetch(ctx, cl)
	if err != nil || out == nil || len(body) == 0 {
		return err
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("carteiro: decode the answer of %s %s: %w", cl.method, cl.path, err)
	}
	return nil
}

// fetch runs the call with retries and returns the 2xx answer and its
// body as read; any other answer is a *Error.
func (c *Client) fetch(ctx context.Context, cl call) (*http.Response, []byte, error) {
	var payload []byte
	if cl.body != nil {
		var err error
		if payload, err = json.Marshal(cl.body); err != nil {
			return nil, nil, fmt.Errorf("carteiro: encode %s %s: %w", cl.method, cl.path, err)
		}
	}
	retryable := cl.idempotent || cl.idempotencyKey != ""
	for attempt := 0; ; attempt++ {
		resp, body, err := c.once(ctx, cl, payload)
		var wait time.Duration
		var again bool
		if err != nil {
			// A request that may have reached the server is repeated only
			// when repeating it is harmless.
			again = retryable && ctx.Err() == nil && !errors.Is(err, ErrAnswerTooLarge)
			wait = c.retry.backoff(attempt)
		} else {
			if resp.StatusCode/100 == 2 {
				return resp, body, nil
			}
			err = newError(resp, body)
			again, wait = c.retry.decide(resp, retryable, attempt)
		}
		if !again || attempt >= c.retry.MaxRetries {
			return nil, nil, err
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, nil, err
		case <-timer.C:
		}
	}
}

// once sends the request once and reads the whole answer.
func (c *Client) once(ctx context.Context, cl call, payload []byte) (*http.Response, []byte, error) {
	u := c.baseURL + productPrefix + cl.path
	if len(cl.query) > 0 {
		u += "?" + cl.query.Encode()
	}
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, u, body)
	if err != nil {
		return nil, nil, fmt.Errorf("carteiro: %s %s: %w", cl.method, cl.path, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	accept := "application/json"
	if cl.accept != "" {
		accept = cl.accept
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("User-Agent", c.userAgent)
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.language != "" {
		req.Header.Set("Accept-Language", c.language)
	}
	if cl.idempotencyKey != "" {
		req.Header.Set("Idempotency-Key", cl.idempotencyKey)
	}
	resp, err := c.httpClient.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("carteiro: %s %s: %w", cl.method, cl.path, err)
	}
	defer resp.Body.Close()
	limit := int64(maxAnswer)
	if cl.maxAnswer > 0 {
		limit = cl.maxAnswer
	}
	answer, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, nil, fmt.Errorf("carteiro: read the answer of %s %s: %w", cl.method, cl.path, err)
	}
	if int64(len(answer)) > limit {
		// A cut answer would pass for a whole one: a raw message or an
		// attachment would be silently short.
		return nil, nil, fmt.Errorf("carteiro: %s %s: %w (%d bytes)", cl.method, cl.path, ErrAnswerTooLarge, limit)
	}
	return resp, answer, nil
}

// pathf builds a path with escaped segments: pathf("/emails/%s", id).
func pathf(format string, ids ...string) string {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = url.PathEscape(id)
	}
	return fmt.Sprintf(format, args...)
}

// String returns a pointer to v, for optional request fields.
func String(v string) *string { return &v }

// Bool returns a pointer to v, for optional request fields.
func Bool(v bool) *bool { return &v }

// Int returns a pointer to v, for optional request fields.
func Int(v int) *int { return &v }

// Time returns a pointer to v, for optional request fields.
func Time(v time.Time) *time.Time { return &v }
