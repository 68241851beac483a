package store

import (
	"context"
	"time"

	"github.com/carteiro/carteiro"
)

// The writes below run statements of their own that take locks other
// writers wait for (an email's counters, a suppression's gate, a webhook's
// failure streak), so they share the transaction of a shared commit only on
// SQLite, where it saves an fsync each (inSharedOnSQLite). The use cases say
// what happened; which commit it gets is the store's choice, as for Accept
// and RecordOutcome.

// RecordHit writes a hit on an email's open pixel or tracked link (D53):
// work counts it and records its event in tx.
func (s *Store) RecordHit(ctx context.Context, work func(tx *Tx) error) error {
	return s.inSharedOnSQLite(ctx, work)
}

// RecordReport writes what a bounce or complaint report bound to one
// recipient says (D65): work updates the recipient, its email and its
// suppressions in tx.
func (s *Store) RecordReport(ctx context.Context, work func(tx *Tx) error) error {
	return s.inSharedOnSQLite(ctx, work)
}

// WebhookFailure is a failed webhook attempt as the use case judged it.
type WebhookFailure struct {
	// Delivery is the attempt's delivery, its status, attempts and
	// response already updated.
	Delivery *carteiro.WebhookDelivery
	// Gone: the receiver answered 410, which disables the webhook (D49).
	Gone bool
	At   time.Time
	// DisableAfter and DisableMinAttempts are D50's rule for endpoints
	// that keep failing (CountWebhookFailure).
	DisableAfter       time.Duration
	DisableMinAttempts int
}

// RecordWebhookFailure writes f and counts it in its webhook's failure
// streak, after retry, the retry's job (nil when there is none). Failures
// of one webhook all update its row, so they keep transactions of their own
// on PostgreSQL, and a dead endpoint cannot hold up the shared transactions
// of others.
func (s *Store) RecordWebhookFailure(ctx context.Context, f WebhookFailure, retry func(tx *Tx) error) error {
	return s.inSharedOnSQLite(ctx, func(tx *Tx) error {
		if err := tx.UpdateDelivery(ctx, f.Delivery); err != nil {
			return err
		}
		if err := tx.CountWebhookFailure(ctx, f.Delivery.WebhookID, f.Gone, f.At, f.DisableAfter, f.DisableMinAttempts); err != nil {
			return err
		}
		if retry != nil {
			return retry(tx)
		}
		return nil
	})
}
