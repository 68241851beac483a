package app

import (
	"context"

	"github.com/carteiro/carteiro"
)

// maxEmailEvents bounds the events whose deliveries are looked for, so
// the list of ids stays a bounded statement when an email was opened or
// clicked very often: the newest are kept.
const maxEmailEvents = 500

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
	pushed = pushed[max(0, len(pushed)-maxEmailEvents):]
	ids := make([]string, len(pushed))
	for i, ev := range pushed {
		ids[i] = ev.ID
	}
	// Every delivery of these events, to any of the organization's
	// webhooks, however long after its event it was made.
	ds, err := a.store.EventDeliveries(ctx, p.Org.ID, ids)
	if err != nil {
		return nil, storeErr(err)
	}
	return &EmailDetails{Email: e, Deliveries: ds}, nil
}
