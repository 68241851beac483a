package carteiro

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// WebhooksService manages webhook endpoints (api-v1.md 4.7). Package
// webhook verifies the requests they receive.
type WebhooksService struct{ c *Client }

// Webhook is an endpoint (api-v1.md 2.11). The secret is never shown
// again: SecretPreview holds its first characters (Get, Create, Update);
// HasSecret is set by List.
type Webhook struct {
	ID            string    `json:"id"`
	URL           string    `json:"url"`
	Events        []string  `json:"events"`
	Status        string    `json:"status"`
	Description   *string   `json:"description"`
	CreatedAt     time.Time `json:"createdAt"`
	SecretPreview *string   `json:"secretPreview,omitempty"`
	HasSecret     bool      `json:"hasSecret,omitempty"`
}

// CreateWebhookRequest is POST /webhooks. Secret (16 to 256 printable
// characters) signs every delivery; without one deliveries are unsigned.
type CreateWebhookRequest struct {
	URL         string   `json:"url"`
	Events      []string `json:"events"`
	Secret      string   `json:"secret,omitempty"`
	Description *string  `json:"description,omitempty"`
}

// UpdateWebhookRequest is PUT /webhooks/{id}: nil fields stay as they are.
type UpdateWebhookRequest struct {
	URL         string            `json:"url,omitempty"`
	Events      []string          `json:"events,omitempty"`
	Description *Nullable[string] `json:"description,omitempty"`
}

// WebhookDelivery is one event's delivery to an endpoint (api-v1.md 2.12).
type WebhookDelivery struct {
	ID             string    `json:"id"`
	WebhookID      string    `json:"webhookId"`
	EmailEventID   *string   `json:"emailEventId"`
	EventType      string    `json:"eventType"`
	ResponseStatus *int      `json:"responseStatus"`
	ResponseBody   *string   `json:"responseBody"`
	Attempts       int       `json:"attempts"`
	LastError      *string   `json:"lastError"`
	Status         string    `json:"status"`
	NextRunAt      time.Time `json:"nextRunAt"`
	CreatedAt      time.Time `json:"createdAt"`
}

// DeliveryListParams filters GET /webhooks/{id}/deliveries.
type DeliveryListParams struct {
	EventType string
	// Status is pending, success, failed or exhausted.
	Status   string
	From, To time.Time
	Limit    int
}

// WebhookSecret is the answer to RotateSecret: the only time the new
// secret is shown.
type WebhookSecret struct {
	WebhookID string `json:"webhookId"`
	Secret    string `json:"secret"`
}

// Create is POST /webhooks.
func (s *WebhooksService) Create(ctx context.Context, req *CreateWebhookRequest) (*Webhook, error) {
	var out Webhook
	err := s.c.do(ctx, call{method: http.MethodPost, path: "/webhooks", body: req}, &out)
	return result(&out, err)
}

// ListPage is GET /webhooks; status ("" for all) is active, paused or
// disabled.
func (s *WebhooksService) ListPage(ctx context.Context, status string) ([]Webhook, error) {
	q := url.Values{}
	setString(q, "status", status)
	var out struct {
		Webhooks []Webhook `json:"webhooks"`
	}
	err := s.c.do(ctx, call{method: http.MethodGet, path: "/webhooks", query: q, idempotent: true}, &out)
	return out.Webhooks, err
}

// List iterates over GET /webhooks.
func (s *WebhooksService) List(ctx context.Context, status string) iter.Seq2[*Webhook, error] {
	return onePage(ctx, func(ctx context.Context) ([]Webhook, error) { return s.ListPage(ctx, status) })
}

// Get is GET /webhooks/{id}.
func (s *WebhooksService) Get(ctx context.Context, id string) (*Webhook, error) {
	var out Webhook
	err := s.c.do(ctx, call{method: http.MethodGet, path: pathf("/webhooks/%s", id), idempotent: true}, &out)
	return result(&out, err)
}

// Update is PUT /webhooks/{id}.
func (s *WebhooksService) Update(ctx context.Context, id string, req *UpdateWebhookRequest) (*Webhook, error) {
	var out Webhook
	err := s.c.do(ctx, call{method: http.MethodPut, path: pathf("/webhooks/%s", id), body: req, idempotent: true}, &out)
	return result(&out, err)
}

// SetStatus is PATCH /webhooks/{id}: "active" or "paused".
func (s *WebhooksService) SetStatus(ctx context.Context, id, status string) error {
	return s.c.do(ctx, call{method: http.MethodPatch, path: pathf("/webhooks/%s", id),
		body: map[string]string{"status": status}, idempotent: true}, nil)
}

// Delete is DELETE /webhooks/{id}.
func (s *WebhooksService) Delete(ctx context.Context, id string) error {
	return s.c.do(ctx, call{method: http.MethodDelete, path: pathf("/webhooks/%s", id), idempotent: true}, nil)
}

// DeliveriesPage is GET /webhooks/{id}/deliveries.
func (s *WebhooksService) DeliveriesPage(ctx context.Context, id string, p *DeliveryListParams) ([]WebhookDelivery, error) {
	q := url.Values{}
	if p != nil {
		setString(q, "eventType", p.EventType)
		setString(q, "status", p.Status)
		setTime(q, "from", p.From)
		setTime(q, "to", p.To)
		setInt(q, "limit", p.Limit)
	}
	var out struct {
		Deliveries []WebhookDelivery `json:"deliveries"`
	}
	err := s.c.do(ctx, call{method: http.MethodGet, path: pathf("/webhooks/%s/deliveries", id), query: q, idempotent: true}, &out)
	return out.Deliveries, err
}

// Deliveries iterates over GET /webhooks/{id}/deliveries, newest first.
func (s *WebhooksService) Deliveries(ctx context.Context, id string, p *DeliveryListParams) iter.Seq2[*WebhookDelivery, error] {
	return onePage(ctx, func(ctx context.Context) ([]WebhookDelivery, error) { return s.DeliveriesPage(ctx, id, p) })
}

// Test is POST /webhooks/{id}/test: a made-up event of eventType
// ("" for email.sent), signed like a real one. It returns the delivery id.
func (s *WebhooksService) Test(ctx context.Context, id, eventType string) (string, error) {
	var body any
	if eventType != "" {
		body = map[string]string{"eventType": eventType}
	}
	var out struct {
		DeliveryID string `json:"deliveryId"`
	}
	err := s.c.do(ctx, call{method: http.MethodPost, path: pathf("/webhooks/%s/test", id), body: body}, &out)
	return out.DeliveryID, err
}

// RotateSecret is POST /webhooks/{id}/rotate-secret: the old secret stops
// working at once.
func (s *WebhooksService) RotateSecret(ctx context.Context, id string) (*WebhookSecret, error) {
	var out WebhookSecret
	err := s.c.do(ctx, call{method: http.MethodPost, path: pathf("/webhooks/%s/rotate-secret", id)}, &out)
	return result(&out, err)
}
