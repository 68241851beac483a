package store

import (
	"context"
	"fmt"
)

// WebhookJobs inserts the jobs of webhook deliveries in tx. It is handed
// the deliveries of every message received in one transaction at once, so
// that it can insert them with one statement (the queue's WriteJobs)
// instead of one each: on SQLite a job insert per message was the largest
// part of receiving after the message's own row (issue 28).
type WebhookJobs interface {
	InsertWebhookJobs(ctx context.Context, tx *Tx, deliveryIDs []string) error
}

// RecordReceived writes a received email (D75): work inserts it, one row
// per organization it reached, with its webhook deliveries, in tx, and
// returns the deliveries that get a job now; jobs inserts those jobs in
// the same transaction, with those of the other messages sharing it. On
// SQLite concurrent sessions share one fsync, as accepted emails do; a nil
// error still means the message and its jobs committed.
func (s *Store) RecordReceived(ctx context.Context, jobs WebhookJobs, work func(tx *Tx) ([]string, error)) error {
	return s.inSharedOnSQLite(ctx, func(tx *Tx) error {
		ids, err := work(tx)
		if err != nil {
			return err
		}
		// The caller's last step, once nothing else of its work can fail:
		// its savepoint's rollback would not take the ids back
		// (Tx.sharedWrites).
		if len(ids) > 0 {
			rows := tx.sharedWrites(receivedJobsKey{}, func() flusher { return &receivedJobs{jobs: jobs} }).(*receivedJobs)
			rows.deliveryIDs = append(rows.deliveryIDs, ids...)
		}
		return nil
	})
}

// receivedJobsKey names a transaction's receivedJobs (Tx.sharedWrites).
type receivedJobsKey struct{}

// receivedJobs is the webhook jobs of every message received in one
// transaction.
type receivedJobs struct {
	jobs        WebhookJobs
	deliveryIDs []string
}

// Flush inserts the jobs (flusher). Its failure fails the transaction, so
// no message of it is answered 250 (D75: never a 250 for mail not
// committed).
func (r *receivedJobs) Flush(ctx context.Context, tx *Tx) error {
	if err := r.jobs.InsertWebhookJobs(ctx, tx, r.deliveryIDs); err != nil {
		return fmt.Errorf("store: webhook jobs of received email: %w", err)
	}
	return nil
}
