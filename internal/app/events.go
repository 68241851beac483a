package app

import (
	"context"
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
// restart would lose: the jobs are committed with the events. It is the
// last write of its transaction (see the counters below): callers update
// the email and its recipients first.
func (a *App) recordEvents(ctx context.Context, tx *store.Tx, e *carteiro.Email, evs []*carteiro.EmailEvent) error {
	return a.recordEventsOf(ctx, tx, []emailEvents{{email: e, events: evs}})
}

// emailEvents is one email and the events it gets.
type emailEvents struct {
	email  *carteiro.Email
	events []*carteiro.EmailEvent
}

// recordEventsOf is recordEvents for several emails of one organization
// and mode (a broadcast step's failed contacts): one statement for all the
// events and one upsert for all their counters, rather than one each per
// email; every statement is a round trip to PostgreSQL.
func (a *App) recordEventsOf(ctx context.Context, tx *store.Tx, batch []emailEvents) error {
	var all []*carteiro.EmailEvent
	var adds []store.StatsAddition
	for _, b := range batch {
		all = append(all, b.events...)
		adds = append(adds, statsAdditions(b.email, b.events)...)
	}
	if err := tx.InsertEvents(ctx, all); err != nil {
		return err
	}
	var hooks []*carteiro.Webhook
	loaded := false
	var deliveries []*carteiro.WebhookDelivery
	var jobs []Job
	for _, b := range batch {
		for _, ev := range b.events {
			typ := carteiro.WebhookType(ev.Type)
			if typ == "" {
				continue
			}
			if !loaded {
				var err error
				if hooks, err = tx.ListWebhooks(ctx, b.email.OrgID, ""); err != nil {
					return err
				}
				loaded = true
			}
			for _, h := range hooks {
				if h.Status == carteiro.WebhookDisabled || !slices.Contains(h.Events, typ) {
					continue
				}
				payload, err := eventPayload(b.email, ev, typ)
				if err != nil {
					return err
				}
				d := a.newDelivery(h, ev.ID, typ, payload)
				deliveries = append(deliveries, d)
				if h.Status == carteiro.WebhookActive {
					// A paused webhook's deliveries wait, without a job,
					// until it is active again (D50).
					jobs = append(jobs, WebhookDeliveryJob{DeliveryID: d.ID})
				}
			}
		}
	}
	if err := tx.InsertDeliveries(ctx, deliveries); err != nil {
		return err
	}
	if err := a.queue.EnqueueManyTx(ctx, tx, jobs, JobOpts{Queue: WebhookQueue}); err != nil {
		return err
	}
	// The counters last: their rows are shared by every email of the
	// organization's hour, and a row stays locked from this statement to
	// the commit, so the shorter that is, the less other transactions
	// wait. It also puts them after the email's own row, in every
	// transaction, so two transactions never take the two in opposite
	// orders.
	return tx.AddStats(ctx, adds...)
}

// newDelivery is a pending delivery of an event to h, due now.
func (a *App) newDelivery(h *carteiro.Webhook, eventID, typ string, payload []byte) *carteiro.WebhookDelivery {
	now := a.clock.Now()
	return &carteiro.WebhookDelivery{ID: uuid.Must(uuid.NewV7()).String(), WebhookID: h.ID, OrgID: h.OrgID, EmailEventID: eventID,
		EventType: typ, Payload: payload, Status: carteiro.DeliveryPending, NextRunAt: now, CreatedAt: now}
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
	return marshalEvent(ev.ID, typ, ev.Timestamp.Format(time.RFC3339Nano), data)
}

// statsMetric is the counter an event adds to, if any; opens and clicks
// count unique emails (D54).
func statsMetric(e *carteiro.Email, ev *carteiro.EmailEvent) (store.StatsMetric, bool) {
	switch ev.Type {
	case carteiro.EventSent:
		return store.MetricSent, true
	case carteiro.EventDelivered:
		return store.MetricDelivered, true
	case carteiro.EventFailed:
		return store.MetricFailed, true
	case carteiro.EventBounced:
		return store.MetricBounced, true
	case carteiro.EventComplained:
		return store.MetricComplained, true
	case carteiro.EventOpened:
		return store.MetricOpened, e.OpenCount <= 1
	case carteiro.EventClicked:
		return store.MetricClicked, e.ClickCount <= 1
	}
	return "", false
}

// statsAdditions are the statistics counters events add to, once for all
// emails and once per tag (D54); AddStats writes them in one statement (the
// store orders its rows so that concurrent transactions lock shared rows in
// the same order).
func statsAdditions(e *carteiro.Email, evs []*carteiro.EmailEvent) []store.StatsAddition {
	byHour := map[time.Time]map[store.StatsMetric]int{}
	for _, ev := range evs {
		m, ok := statsMetric(e, ev)
		if !ok {
			continue
		}
		hour := ev.Timestamp.UTC().Truncate(time.Hour)
		if byHour[hour] == nil {
			byHour[hour] = map[store.StatsMetric]int{}
		}
		byHour[hour][m]++
	}
	var adds []store.StatsAddition
	for hour, counts := range byHour {
		key := store.StatsKey{OrgID: e.OrgID, Mode: string(e.Mode), DomainID: e.DomainID, Hour: hour, EmailID: e.ID}
		adds = append(adds, store.StatsAddition{Key: key, Counts: counts})
		for _, t := range e.Tags {
			for _, tag := range []string{t.Name, t.Name + ":" + t.Value} {
				key.Tag = tag
				adds = append(adds, store.StatsAddition{Key: key, Counts: counts})
			}
		}
	}
	return adds
}
