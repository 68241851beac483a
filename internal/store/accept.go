package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/carteiro/carteiro"
)

// AcceptedEmail is one email a use case decided to accept, with what the
// store must still check for it in the transaction that writes it: the
// checks that read rows other requests write concurrently (an idempotency
// key, a warmup day's count) can only be answered there.
type AcceptedEmail struct {
	Email *carteiro.Email
	// Event is the first event of the email's timeline.
	Event *carteiro.EmailEvent
	// Idempotency, when the request carried a key, is the answer to
	// record for it (D22). A record of the same key created after
	// ReplaySince is answered instead (AcceptResult.Replayed) and the
	// email is not written; an older one is forgotten.
	Idempotency *IdempotencyRecord
	ReplaySince time.Time
	// Warmup, when not nil, counts the email against its domain's daily
	// quota (D34); past the quota it is not written (AcceptResult.OverQuota).
	Warmup *WarmupCharge
}

// AcceptResult is what Accept did with one AcceptedEmail: written when
// neither field is set.
type AcceptResult struct {
	// Replayed is the live record of the email's idempotency key: the
	// use case answers with it (or refuses a different request, D22).
	Replayed *IdempotencyRecord
	// OverQuota: its domain's warmup quota for the day is used up.
	OverQuota bool
}

// Written says whether the email was written.
func (r AcceptResult) Written() bool { return r.Replayed == nil && !r.OverQuota }

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

// Accept writes one request's accepted emails, in order, with their first
// events, idempotency records, warmup counts and delivery jobs (jobs), and
// says for each what it did. Checks the use case cannot make before the
// transaction are store rules made here, in it: a key recorded by an
// earlier email (of this request or a committed one) replays it, and a
// domain's day is counted under its lock (WarmupLedger). A request none of
// whose emails is written leaves nothing behind. When a concurrent request
// committed the same idempotency key first (ErrConflict), the request runs
// again in a transaction of its own, where it sees the other's record and
// replays it (D22).
func (s *Store) Accept(ctx context.Context, kind AcceptKind, jobs DeliveryJobs, emails []AcceptedEmail) ([]AcceptResult, error) {
	var results []AcceptResult
	work := acceptWork(ctx, jobs, emails, &results)
	var err error
	if kind == AcceptOne {
		err = s.inShared(ctx, work)
	} else {
		err = s.inSharedOnSQLite(ctx, work)
	}
	if errors.Is(err, ErrConflict) {
		err = s.InTx(ctx, work)
	}
	if errors.Is(err, errNothingWritten) {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	return results, nil
}

// errNothingWritten ends the work of a request none of whose emails was
// written, so that its savepoint (or transaction) takes back the rows its
// checks touched (an expired key, a warmup day's row).
var errNothingWritten = errors.New("store: no accepted email written")

// acceptWork is one request's work in Accept's transaction. It may run
// twice (a shared transaction run again, a conflict), so it starts afresh
// each time. The rows join the transaction's accepted rows as its last
// step, once nothing else of its work can fail: its savepoint's rollback
// would not take them back (Tx.sharedWrites).
func acceptWork(ctx context.Context, jobs DeliveryJobs, emails []AcceptedEmail, results *[]AcceptResult) func(tx *Tx) error {
	return func(tx *Tx) error {
		*results = make([]AcceptResult, len(emails))
		var warmup WarmupLedger
		var written []AcceptedEmail
		for i, a := range emails {
			res, err := acceptOne(ctx, tx, &warmup, a)
			if err != nil {
				return err
			}
			(*results)[i] = res
			if res.Written() {
				written = append(written, a)
			}
		}
		if len(written) == 0 {
			return errNothingWritten
		}
		if err := warmup.Flush(ctx, tx); err != nil {
			return err
		}
		tx.acceptedRows(jobs).add(written)
		return nil
	}
}

// acceptOne makes the store's checks for one email and writes its
// idempotency record; its email and event rows are left to the commit.
func acceptOne(ctx context.Context, tx *Tx, warmup *WarmupLedger, a AcceptedEmail) (AcceptResult, error) {
	expired := false
	if r := a.Idempotency; r != nil {
		prev, err := tx.Idempotency(ctx, r.OrgID, r.Mode, r.Endpoint, r.Key)
		switch {
		case err == nil && prev.CreatedAt.After(a.ReplaySince):
			return AcceptResult{Replayed: prev}, nil
		case err == nil:
			expired = true
		case !errors.Is(err, ErrNotFound):
			return AcceptResult{}, err
		}
	}
	if a.Warmup != nil {
		ok, err := warmup.Take(ctx, tx, *a.Warmup)
		if err != nil {
			return AcceptResult{}, err
		}
		if !ok {
			return AcceptResult{OverQuota: true}, nil
		}
	}
	if r := a.Idempotency; r != nil {
		if expired {
			if err := tx.DeleteIdempotencyKey(ctx, r.OrgID, r.Endpoint, r.Key); err != nil {
				return AcceptResult{}, err
			}
		}
		if err := tx.InsertIdempotency(ctx, r); err != nil {
			return AcceptResult{}, err
		}
	}
	return AcceptResult{}, nil
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

func (r *acceptedRows) add(written []AcceptedEmail) {
	for _, a := range written {
		r.emails = append(r.emails, a.Email)
		r.events = append(r.events, a.Event)
	}
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
