package store

import (
	"context"
)

// SharedRun runs fns as the callers of one shared transaction, in this
// order, as the shared commit loop runs a batch, then answers each as
// inShared does (a caller told to run alone runs again in its own
// transaction). ranAlone says which ones did.
func (s *Store) SharedRun(ctx context.Context, fns ...func(tx *Tx) error) (errs []error, ranAlone []bool) {
	batch := make([]*sharedReq, len(fns))
	for i, fn := range fns {
		batch[i] = &sharedReq{fn: fn, done: make(chan error, 1)}
	}
	s.shared.run(batch)
	errs, ranAlone = make([]error, len(fns)), make([]bool, len(fns))
	for i, r := range batch {
		errs[i] = <-r.done
		if errs[i] == errRunAlone {
			ranAlone[i] = true
			errs[i] = s.inOwnTx(ctx, fns[i])
		}
	}
	return errs, ranAlone
}

// ExplainEmailsByMessageID is the plan of EmailsByMessageID's query for n
// Message-IDs, one line per step. On PostgreSQL sequential scans are
// discouraged first: the planner would scan a nearly empty table whatever
// its indexes, and the test asks what it can search by.
func (s *Store) ExplainEmailsByMessageID(ctx context.Context, orgID string, messageIDs []string) (string, error) {
	args := append([]any{orgID}, anys(messageIDs)...)
	var plan string
	err := s.InTx(ctx, func(tx *Tx) error {
		if s.dialect == Postgres {
			if _, err := tx.exec(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
				return err
			}
		}
		var err error
		plan, err = tx.explain(ctx, byMessageIDQuery(len(messageIDs)), args)
		return err
	})
	return plan, err
}

// AcceptWork is one caller's work in Accept's shared transaction, for
// SharedRun.
func AcceptWork(ctx context.Context, jobs DeliveryJobs, emails []AcceptedEmail, results *[]AcceptResult) func(tx *Tx) error {
	return acceptWork(ctx, jobs, emails, results)
}

// ErrNothingWritten ends the work of a request none of whose emails was
// written (Accept answers it with the results).
var ErrNothingWritten = errNothingWritten

// OutcomeWork is one caller's work in RecordOutcome's shared transaction,
// for SharedRun.
func OutcomeWork(o Outcome, events EventRecorder, own func(tx *Tx) error) func(tx *Tx) error {
	return outcomeWork(o, events, own)
}

// InShared is inShared, for tests of the shared commit.
func (s *Store) InShared(ctx context.Context, fn func(tx *Tx) error) error {
	return s.inShared(ctx, fn)
}

// InSharedOnSQLite is inSharedOnSQLite, for tests of the shared commit.
func (s *Store) InSharedOnSQLite(ctx context.Context, fn func(tx *Tx) error) error {
	return s.inSharedOnSQLite(ctx, fn)
}

// Flusher is flusher, for tests that add shared writes of their own.
type Flusher = flusher

// SharedWrites is Tx.sharedWrites, for tests.
func (t *Tx) SharedWrites(key any, mk func() Flusher) Flusher {
	return t.sharedWrites(key, mk)
}
