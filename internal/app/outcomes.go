package app

import (
	"context"

	"github.com/carteiro/carteiro/internal/store"
)

// recordOutcome has the store write an attempt's outcome after own, the
// attempt's statements besides it (nil when none); the store picks how to
// commit them (store.RecordOutcome).
func (a *App) recordOutcome(ctx context.Context, o store.Outcome, own func(tx *store.Tx) error) error {
	return a.store.RecordOutcome(ctx, o, outcomeEvents{a}, own)
}

// outcomeEvents records outcomes' events with their webhook deliveries and
// counters, as every event is recorded (store.EventRecorder).
type outcomeEvents struct{ app *App }

func (r outcomeEvents) RecordEventsOf(ctx context.Context, tx *store.Tx, emails []store.EmailEvents) error {
	batch := make([]emailEvents, len(emails))
	for i, e := range emails {
		batch[i] = emailEvents{email: e.Email, events: e.Events}
	}
	return r.app.recordEventsOf(ctx, tx, batch)
}
