package app

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/webhook"
)

// Delivery list sizes (D15).
const (
	DefaultDeliveryPage = 50
	MaxDeliveryPage     = 200
)

// disableAfter and disableMinAttempts are D50's rule for endpoints that
// keep failing.
const (
	disableAfter       = 5 * 24 * time.Hour
	disableMinAttempts = 20
)

// WebhookInput is POST and PUT /webhooks after decoding; nil means absent.
type WebhookInput struct {
	URL         *string
	Events      []string
	EventsSet   bool
	Secret      *string
	Description *string
	// DescriptionSet tells an explicit null (clear) from an absent field.
	DescriptionSet bool
}

func (a *App) checkWebhookURL(ctx context.Context, raw string) error {
	if reason, ok := webhook.CheckURL(ctx, raw, a.dns.Resolver, a.cfg.WebhookAllowPrivate); !ok {
		return carteiro.Invalid("url", reason)
	}
	return nil
}

func checkEvents(events []string) error {
	if len(events) == 0 {
		return carteiro.Invalid("events", "required")
	}
	for i, ev := range events {
		if !slices.Contains(carteiro.WebhookEventTypes, ev) {
			return carteiro.Invalid(fmt.Sprintf("events[%d]", i), "invalid_value")
		}
	}
	return nil
}

// CreateWebhook registers an endpoint (4.7, D51, D52).
func (a *App) CreateWebhook(ctx context.Context, p *Principal, in WebhookInput) (*carteiro.Webhook, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	if in.URL == nil {
		return nil, carteiro.Invalid("url", "required")
	}
	if err := a.checkWebhookURL(ctx, *in.URL); err != nil {
		return nil, err
	}
	if err := checkEvents(in.Events); err != nil {
		return nil, err
	}
	now := a.clock.Now()
	w := &carteiro.Webhook{ID: uuid.Must(uuid.NewV7()).String(), OrgID: p.Org.ID, URL: *in.URL, Events: dedupe(in.Events),
		Status: carteiro.WebhookActive, CreatedAt: now, UpdatedAt: now}
	if in.Description != nil {
		w.Description = *in.Description
	}
	if in.Secret != nil {
		if !webhook.ValidSecret(*in.Secret) {
			return nil, carteiro.Invalid("secret", "invalid_value")
		}
		if err := a.setSecret(w, *in.Secret); err != nil {
			return nil, err
		}
	}
	return w, storeErr(a.store.CreateWebhook(ctx, w))
}

func (a *App) setSecret(w *carteiro.Webhook, secret string) error {
	sealed, err := a.box.Seal([]byte(secret))
	if err != nil {
		return &carteiro.Error{Code: carteiro.CodeInternal, Err: err}
	}
	w.Secret, w.SecretPreview = sealed, webhook.SecretPreview(secret)
	return nil
}

func dedupe(xs []string) []string {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// ListWebhooks returns the organization's webhooks, of one status if given.
func (a *App) ListWebhooks(ctx context.Context, p *Principal, status string) ([]*carteiro.Webhook, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	if status != "" && status != "active" && status != "paused" && status != "disabled" {
		return nil, carteiro.Invalid("status", "invalid_value")
	}
	ws, err := a.store.ListWebhooks(ctx, p.Org.ID, status)
	return ws, storeErr(err)
}

// GetWebhook returns one webhook.
func (a *App) GetWebhook(ctx context.Context, p *Principal, id string) (*carteiro.Webhook, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	w, err := a.store.Webhook(ctx, p.Org.ID, id)
	return w, storeErr(err)
}

// UpdateWebhook changes url, events and description (PUT: at least one).
func (a *App) UpdateWebhook(ctx context.Context, p *Principal, id string, in WebhookInput) (*carteiro.Webhook, error) {
	w, err := a.GetWebhook(ctx, p, id)
	if err != nil {
		return nil, err
	}
	if in.URL == nil && !in.EventsSet && !in.DescriptionSet {
		return nil, carteiro.Invalid("url", "required")
	}
	if in.URL != nil {
		if err := a.checkWebhookURL(ctx, *in.URL); err != nil {
			return nil, err
		}
		w.URL = *in.URL
	}
	if in.EventsSet {
		if err := checkEvents(in.Events); err != nil {
			return nil, err
		}
		w.Events = dedupe(in.Events)
	}
	if in.DescriptionSet {
		w.Description = ""
		if in.Description != nil {
			w.Description = *in.Description
		}
	}
	w.UpdatedAt = a.clock.Now()
	return w, storeErr(a.store.UpdateWebhook(ctx, w))
}

// SetWebhookStatus is PATCH: active or paused (3.5). Making a webhook
// active again sends what waited while it was paused (D50); a disabled
// webhook may be made active again.
func (a *App) SetWebhookStatus(ctx context.Context, p *Principal, id, status string) (*carteiro.Webhook, error) {
	if status != string(carteiro.WebhookActive) && status != string(carteiro.WebhookPaused) {
		return nil, carteiro.Invalid("status", "invalid_value")
	}
	w, err := a.GetWebhook(ctx, p, id)
	if err != nil {
		return nil, err
	}
	wasActive := w.Status == carteiro.WebhookActive
	w.Status, w.UpdatedAt = carteiro.WebhookStatus(status), a.clock.Now()
	if w.Status == carteiro.WebhookActive {
		w.FailingSince, w.FailedAttempts = nil, 0
	}
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.UpdateWebhook(ctx, w); err != nil {
			return err
		}
		if wasActive || w.Status != carteiro.WebhookActive {
			return nil
		}
		ids, err := tx.PendingDeliveryIDs(ctx, w.ID)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := a.queue.EnqueueTx(ctx, tx, WebhookDeliveryJob{DeliveryID: id}, JobOpts{UniqueByArgs: true, Queue: WebhookQueue}); err != nil {
				return err
			}
		}
		return nil
	})
	return w, storeErr(err)
}

// DeleteWebhook removes a webhook and its deliveries.
func (a *App) DeleteWebhook(ctx context.Context, p *Principal, id string) error {
	if err := p.requireFull(); err != nil {
		return err
	}
	return storeErr(a.store.InTx(ctx, func(tx *store.Tx) error { return tx.DeleteWebhook(ctx, p.Org.ID, id) }))
}

// RotateWebhookSecret replaces the secret and returns the new one, the only
// time it is shown (4.7).
func (a *App) RotateWebhookSecret(ctx context.Context, p *Principal, id string) (string, error) {
	w, err := a.GetWebhook(ctx, p, id)
	if err != nil {
		return "", err
	}
	secret := webhook.NewSecret()
	if err := a.setSecret(w, secret); err != nil {
		return "", err
	}
	w.UpdatedAt = a.clock.Now()
	return secret, storeErr(a.store.UpdateWebhook(ctx, w))
}

// DeliveryQuery is GET /webhooks/:id/deliveries after decoding.
type DeliveryQuery struct {
	EventType, Status string
	From, To          *time.Time
	Limit             int
}

// ListDeliveries returns a webhook's deliveries, newest first.
func (a *App) ListDeliveries(ctx context.Context, p *Principal, id string, q DeliveryQuery) ([]*carteiro.WebhookDelivery, error) {
	if _, err := a.GetWebhook(ctx, p, id); err != nil {
		return nil, err
	}
	switch q.Status {
	case "", "pending", "success", "failed", "exhausted":
	default:
		return nil, carteiro.Invalid("status", "invalid_value")
	}
	if q.EventType != "" && !slices.Contains(carteiro.WebhookEventTypes, q.EventType) {
		return nil, carteiro.Invalid("eventType", "invalid_value")
	}
	switch {
	case q.Limit == 0:
		q.Limit = DefaultDeliveryPage
	case q.Limit < 1 || q.Limit > MaxDeliveryPage:
		return nil, carteiro.Invalid("limit", "out_of_range")
	}
	ds, err := a.store.ListDeliveries(ctx, store.DeliveryFilter{WebhookID: id, EventType: q.EventType, Status: q.Status,
		From: q.From, To: q.To, Limit: q.Limit})
	return ds, storeErr(err)
}

// TestWebhook queues a made-up event with data.test true (D47, D52).
func (a *App) TestWebhook(ctx context.Context, p *Principal, id, eventType string) (string, error) {
	w, err := a.GetWebhook(ctx, p, id)
	if err != nil {
		return "", err
	}
	if eventType == "" {
		eventType = "email.sent"
	}
	if !slices.Contains(carteiro.WebhookEventTypes, eventType) {
		return "", carteiro.Invalid("eventType", "invalid_value")
	}
	now := a.clock.Now()
	if eventType == EventReceived {
		return a.testReceived(ctx, w, now)
	}
	e := &carteiro.Email{ID: uuid.Must(uuid.NewV7()).String(), From: carteiro.Address{Email: "test@example.com"},
		To: []carteiro.Address{{Email: "recipient@example.com"}}, Subject: "Carteiro webhook test"}
	ev := newEvent(e.ID, carteiro.EventType(strings.TrimPrefix(eventType, "email.")), now, map[string]any{"test": true})
	payload, err := eventPayload(e, ev, eventType)
	if err != nil {
		return "", &carteiro.Error{Code: carteiro.CodeInternal, Err: err}
	}
	return a.queueTestDelivery(ctx, w, eventType, payload)
}

// queueTestDelivery stores a made-up event's delivery to w with its job.
func (a *App) queueTestDelivery(ctx context.Context, w *carteiro.Webhook, eventType string, payload []byte) (string, error) {
	d := a.newDelivery(w, "", eventType, payload)
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.InsertDelivery(ctx, d); err != nil {
			return err
		}
		return a.queue.EnqueueTx(ctx, tx, WebhookDeliveryJob{DeliveryID: d.ID}, JobOpts{Queue: WebhookQueue})
	})
	return d.ID, storeErr(err)
}

// DeliverWebhook is the worker side of WebhookDeliveryJob: one attempt,
// recorded durably, and the next one scheduled per D49.
func (a *App) DeliverWebhook(ctx context.Context, deliveryID string) error {
	d, err := a.store.Delivery(ctx, deliveryID)
	if errors.Is(err, store.ErrNotFound) {
		return nil // the webhook was deleted
	}
	if err != nil {
		return err
	}
	if d.Status == carteiro.DeliverySuccess || d.Status == carteiro.DeliveryExhausted {
		return nil
	}
	w, err := a.store.WebhookByID(ctx, d.WebhookID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if w.Status != carteiro.WebhookActive {
		return nil // paused: waits; disabled: never sent (D50)
	}
	secret := ""
	if w.Secret != "" {
		raw, err := a.box.Open(w.Secret)
		if err != nil {
			return fmt.Errorf("open webhook secret: %w", err)
		}
		secret = string(raw)
	}
	// X-Service-Event-Id is the payload's id, the same across retries (D47).
	eventID, err := payloadEventID(d.Payload)
	if err != nil {
		return fmt.Errorf("delivery %s payload: %w", d.ID, err)
	}
	out := a.hooks.Send(ctx, webhook.Request{URL: w.URL, Secret: secret, EventID: eventID, Body: d.Payload, Timestamp: a.clock.Now()})
	now := a.clock.Now()
	d.Attempts++
	d.ResponseStatus, d.ResponseBody, d.LastError = out.Status, out.Body, out.Err
	var retryAt time.Time
	switch next, ok := webhook.NextAttempt(d.Attempts, now, out.RetryAfter, rand.Float64); {
	case out.Success:
		d.Status = carteiro.DeliverySuccess
	case out.Gone:
		// 410: the receiver says it is gone; the webhook is disabled (D49).
		d.Status = carteiro.DeliveryExhausted
	case ok:
		d.Status, d.NextRunAt, retryAt = carteiro.DeliveryFailed, next, next
	default:
		d.Status = carteiro.DeliveryExhausted
	}
	if out.Success {
		return a.store.RecordWebhookSuccess(ctx, d)
	}
	var retry func(tx *store.Tx) error
	if !retryAt.IsZero() {
		retry = func(tx *store.Tx) error {
			return a.queue.EnqueueTx(ctx, tx, WebhookDeliveryJob{DeliveryID: d.ID}, JobOpts{ScheduledAt: retryAt, Queue: WebhookQueue})
		}
	}
	return a.store.RecordWebhookFailure(ctx, store.WebhookFailure{Delivery: d, Gone: out.Gone, At: now,
		DisableAfter: disableAfter, DisableMinAttempts: disableMinAttempts}, retry)
}
