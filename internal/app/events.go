package app

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// WebhookDeliveryJob sends one webhook delivery (one attempt per run).
type WebhookDeliveryJob struct {
	DeliveryID string `json:"deliveryId"`
}

// Kind names the job.
func (WebhookDeliveryJob) Kind() string { return "webhook_delivery" }

// recordEvents appends events to e's timeline and, in the same transaction,
// creates one delivery (and its job) per subscribed webhook and counts the
// events in the statistics (D47, D54). Nothing is sent from a goroutine a
// restart would lose: the jobs are committed with the events.
func (a *App) recordEvents(ctx context.Context, tx *store.Tx, e *carteiro.Email, evs []*carteiro.EmailEvent) error {
	var hooks []*carteiro.Webhook
	loaded := false
	for _, ev := range evs {
		if err := tx.InsertEvent(ctx, ev); err != nil {
			return err
		}
		typ := carteiro.WebhookType(ev.Type)
		if typ == "" {
			continue
		}
		if err := a.countEvent(ctx, tx, e, ev); err != nil {
			return err
		}
		if !loaded {
			var err error
			if hooks, err = tx.ListWebhooks(ctx, e.OrgID, ""); err != nil {
				return err
			}
			loaded = true
		}
		for _, h := range hooks {
			if h.Status == carteiro.WebhookDisabled || !slices.Contains(h.Events, typ) {
				continue
			}
			payload, err := eventPayload(e, ev, typ)
			if err != nil {
				return err
			}
			if err := a.newDelivery(ctx, tx, h, ev.ID, typ, payload); err != nil {
				return err
			}
		}
	}
	return nil
}

// newDelivery stores a pending delivery; an active webhook gets its job at
// once, a paused one's waits until it is active again (D50).
func (a *App) newDelivery(ctx context.Context, tx *store.Tx, h *carteiro.Webhook, eventID, typ string, payload []byte) error {
	now := a.clock.Now()
	d := &carteiro.WebhookDelivery{ID: uuid.Must(uuid.NewV7()).String(), WebhookID: h.ID, OrgID: h.OrgID, EmailEventID: eventID,
		EventType: typ, Payload: payload, Status: carteiro.DeliveryPending, NextRunAt: now, CreatedAt: now}
	if err := tx.InsertDelivery(ctx, d); err != nil {
		return err
	}
	if h.Status != carteiro.WebhookActive {
		return nil
	}
	return a.queue.EnqueueTx(ctx, tx, WebhookDeliveryJob{DeliveryID: d.ID}, JobOpts{Queue: WebhookQueue})
}

// eventPayload is D47's body: {id, type, createdAt, data}.
func eventPayload(e *carteiro.Email, ev *carteiro.EmailEvent, typ string) ([]byte, error) {
	data := map[string]any{}
	for k, v := range ev.Metadata {
		data[k] = v
	}
	to := make([]string, len(e.To))
	for i, a := range e.To {
		to[i] = a.String()
	}
	tags := []map[string]string{}
	for _, t := range e.Tags {
		tags = append(tags, map[string]string{"name": t.Name, "value": t.Value})
	}
	data["emailId"], data["from"], data["to"], data["subject"], data["tags"] = e.ID, e.From.String(), to, e.Subject, tags
	return json.Marshal(map[string]any{"id": ev.ID, "type": typ, "createdAt": ev.Timestamp.Format(time.RFC3339Nano), "data": data})
}

// countEvent adds an event to the hourly statistics counters, once for all
// emails and once per tag; opens and clicks count unique emails (D54).
func (a *App) countEvent(ctx context.Context, tx *store.Tx, e *carteiro.Email, ev *carteiro.EmailEvent) error {
	var m store.StatsMetric
	switch ev.Type {
	case carteiro.EventSent:
		m = store.MetricSent
	case carteiro.EventDelivered:
		m = store.MetricDelivered
	case carteiro.EventFailed:
		m = store.MetricFailed
	case carteiro.EventBounced:
		m = store.MetricBounced
	case carteiro.EventComplained:
		m = store.MetricComplained
	case carteiro.EventOpened:
		if e.OpenCount > 1 {
			return nil
		}
		m = store.MetricOpened
	case carteiro.EventClicked:
		if e.ClickCount > 1 {
			return nil
		}
		m = store.MetricClicked
	default:
		return nil
	}
	key := store.StatsKey{OrgID: e.OrgID, Mode: string(e.Mode), DomainID: e.DomainID, Hour: ev.Timestamp, EmailID: e.ID}
	if err := tx.IncrementStats(ctx, key, m, 1); err != nil {
		return err
	}
	for _, t := range e.Tags {
		for _, tag := range []string{t.Name, t.Name + ":" + t.Value} {
			key.Tag = tag
			if err := tx.IncrementStats(ctx, key, m, 1); err != nil {
				return err
			}
		}
	}
	return nil
}
