package store

import (
	"context"

	"github.com/carteiro/carteiro"
)

// RecordWebhookSuccess records a successful webhook attempt, d, and ends
// its webhook's failure streak. It writes d's row, and the webhook's only
// when that ends a streak, so it takes no lock that other writers hold:
// successes share transactions on both stores, and write their rows with
// one statement per table for all of them.
func (s *Store) RecordWebhookSuccess(ctx context.Context, d *carteiro.WebhookDelivery) error {
	return s.inShared(ctx, func(tx *Tx) error {
		rows := tx.sharedWrites(webhookSuccessesKey{}, func() flusher { return &webhookSuccesses{} }).(*webhookSuccesses)
		rows.deliveries = append(rows.deliveries, d)
		return nil
	})
}

// webhookSuccessesKey names a transaction's webhookSuccesses (Tx.sharedWrites).
type webhookSuccessesKey struct{}

// webhookSuccesses is every successful webhook attempt of one transaction.
type webhookSuccesses struct {
	deliveries []*carteiro.WebhookDelivery
}

// Flush records the attempts, then ends their webhooks' failure streaks
// (flusher).
func (w *webhookSuccesses) Flush(ctx context.Context, tx *Tx) error {
	if err := tx.UpdateDeliveries(ctx, w.deliveries); err != nil {
		return err
	}
	ids := make([]string, len(w.deliveries))
	for i, d := range w.deliveries {
		ids[i] = d.WebhookID
	}
	return tx.EndWebhookStreaks(ctx, ids)
}
