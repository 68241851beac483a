package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/carteiro/carteiro"
)

// Acceptance is what one request accepted, as the use case decided it:
// the emails, with their recipients and tags, and their timelines' first
// events. Accept writes it with the delivery jobs of its emails.
type Acceptance struct {
	Emails []*carteiro.Email
	Events []*carteiro.EmailEvent
}

// DeliveryJobs inserts the delivery jobs of accepted emails in tx, so a job
// exists exactly when its email was committed (D2). It is handed every
// email accepted in one transaction at once, by one request or by all the
// requests sharing a commit, so that it can insert few jobs for many
// emails. The queue does the inserts (WriteJobs).
type DeliveryJobs interface {
	InsertDeliveries(ctx context.Context, tx *Tx, emails []*carteiro.Email) error
}

// AcceptKind tells Accept how many emails a request brings, which decides
// how the store commits them.
type AcceptKind int

const (
	// AcceptOne is a single email (POST /emails, SMTP submission): it shares
	// a transaction and its multi-row statements with concurrent accepts on
	// both stores, and is answered once that commit is on disk.
	AcceptOne AcceptKind = iota
	// AcceptBatch is a batch (POST /emails/batch), whose rows are multi-row
	// statements already: it shares transactions only on SQLite, for the
	// fsync. On PostgreSQL sharing would funnel concurrent batches into the
	// few shared transactions, which then got less of the database's CPU
	// than the deliveries beside them (docs/benchmarks.md).
	AcceptBatch
)

// Accept runs decide in a transaction and writes the Acceptance it returns
// with the emails' delivery jobs (jobs). decide makes the request's own
// reads and writes (idempotency records, warmup counts) in tx; what it
// returns is added to the transaction's accepted rows only once it
// returned without error, so its failure undoes all of its work even in a
// shared transaction. decide may run twice and must not depend on what an
// earlier run changed in memory: a shared transaction that must be run
// again, or a conflict (ErrConflict, such as an idempotency key a
// concurrent request committed first), runs it again in a transaction of
// its own, where it sees what the other committed (D22).
func (s *Store) Accept(ctx context.Context, kind AcceptKind, jobs DeliveryJobs, decide func(tx *Tx) (Acceptance, error)) error {
	work := acceptWork(jobs, decide)
	var err error
	if kind == AcceptOne {
		err = s.inShared(ctx, work)
	} else {
		err = s.inSharedOnSQLite(ctx, work)
	}
	if errors.Is(err, ErrConflict) {
		err = s.InTx(ctx, work)
	}
	return err
}

// acceptWork is one caller's work in Accept's transaction. The rows join
// the transaction's accepted rows as the caller's last step, once nothing
// else of its work can fail: its savepoint's rollback would not take them
// back (Tx.sharedWrites).
func acceptWork(jobs DeliveryJobs, decide func(tx *Tx) (Acceptance, error)) func(tx *Tx) error {
	return func(tx *Tx) error {
		acc, err := decide(tx)
		if err != nil {
			return err
		}
		tx.acceptedRows(jobs).add(acc)
		return nil
	}
}

// acceptedRowsKey names a transaction's acceptedRows (Tx.sharedWrites).
type acceptedRowsKey struct{}

// acceptedRows is every email accepted in one transaction, written just
// before the commit with one multi-row statement per table.
type acceptedRows struct {
	jobs   DeliveryJobs
	emails []*carteiro.Email
	events []*carteiro.EmailEvent
}

func (t *Tx) acceptedRows(jobs DeliveryJobs) *acceptedRows {
	return t.sharedWrites(acceptedRowsKey{}, func() flusher { return &acceptedRows{jobs: jobs} }).(*acceptedRows)
}

func (r *acceptedRows) add(a Acceptance) {
	r.emails = append(r.emails, a.Emails...)
	r.events = append(r.events, a.Events...)
}

// Flush writes the emails, their events and their jobs (flusher).
func (r *acceptedRows) Flush(ctx context.Context, tx *Tx) error {
	if err := tx.InsertEmails(ctx, r.emails); err != nil {
		return err
	}
	if err := tx.InsertEvents(ctx, r.events); err != nil {
		return err
	}
	if err := r.jobs.InsertDeliveries(ctx, tx, r.emails); err != nil {
		return fmt.Errorf("store: delivery jobs of accepted emails: %w", err)
	}
	return nil
}
