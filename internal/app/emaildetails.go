package app

import (
	"context"
	"slices"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// maxEmailDeliveries bounds the webhook deliveries an email's page lists
// (per webhook): an email's pushed events are a handful, unless it is
// opened or clicked very often.
const maxEmailDeliveries = 100

// maxEmailEvents bounds the events whose deliveries are looked for.
const maxEmailEvents = 500

// deliveryWindow widens the events' time span when looking for their
// deliveries: a delivery is written with its event, a moment after the
// event's own time.
const deliveryWindow = 5 * time.Minute

// EmailDetails is an email with what its page in the dashboard shows
// besides the Email resource: its webhook deliveries (D73).
type EmailDetails struct {
	Email      *carteiro.Email
	Deliveries []*carteiro.WebhookDelivery
}

// GetEmailDetails returns one email of the caller's organization and mode
// with the deliveries of its events to the organization's webhooks, oldest
// first.
func (a *App) GetEmailDetails(ctx context.Context, p *Principal, id string) (*EmailDetails, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	e, err := a.GetEmail(ctx, p, id)
	if err != nil {
		return nil, err
	}
	evs, err := a.store.EmailEvents(ctx, e.ID)
	if err != nil {
		return nil, storeErr(err)
	}
	var pushed []*carteiro.EmailEvent
	for _, ev := range evs {
		if carteiro.WebhookType(ev.Type) != "" { // the others have no deliveries
			pushed = append(pushed, ev)
		}
	}
	// The newest events, when an email was opened or clicked very often:
	// the list of ids stays a bounded statement.
	pushed = pushed[max(0, len(pushed)-maxEmailEvents):]
	var ids []string
	var from, to time.Time
	for _, ev := range pushed {
		if len(ids) == 0 || ev.Timestamp.Before(from) {
			from = ev.Timestamp
		}
		if len(ids) == 0 || ev.Timestamp.After(to) {
			to = ev.Timestamp
		}
		ids = append(ids, ev.ID)
	}
	details := &EmailDetails{Email: e}
	if len(ids) == 0 {
		return details, nil
	}
	hooks, err := a.store.ListWebhooks(ctx, p.Org.ID, "")
	if err != nil {
		return nil, storeErr(err)
	}
	for _, h := range hooks {
		ds, err := a.store.EventDeliveries(ctx, store.EventDeliveryFilter{WebhookID: h.ID, EventIDs: ids,
			From: from.Add(-deliveryWindow), To: to.Add(deliveryWindow), Limit: maxEmailDeliveries})
		if err != nil {
			return nil, storeErr(err)
		}
		details.Deliveries = append(details.Deliveries, ds...)
	}
	slices.SortStableFunc(details.Deliveries, func(x, y *carteiro.WebhookDelivery) int { return x.CreatedAt.Compare(y.CreatedAt) })
	return details, nil
}
