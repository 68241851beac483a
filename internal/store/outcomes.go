package store

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/carteiro/carteiro"
)

// Outcome is what one delivery attempt (real or simulated) decided once its
// result was known: its recipients, its email's progress and its timeline
// events.
type Outcome struct {
	Email          *carteiro.Email
	FirstAttemptAt *time.Time
	Recipients     []*carteiro.Recipient
	Events         []*carteiro.EmailEvent
	// Claim: the attempt has not claimed its email yet (a simulated one).
	// The write claims it, and writes nothing of the outcome when the
	// email is no longer queued or processing: a cancel committed first.
	Claim bool
}

// EmailEvents is one email and the events it gets.
type EmailEvents struct {
	Email  *carteiro.Email
	Events []*carteiro.EmailEvent
}

// EventRecorder records the events of several emails of one organization
// and mode in tx with what they cause (webhook deliveries and their jobs,
// statistics). The use cases implement it: which webhooks an event goes to
// is theirs to decide.
type EventRecorder interface {
	RecordEventsOf(ctx context.Context, tx *Tx, emails []EmailEvents) error
}

// RecordOutcome writes o, after own, the statements the attempt makes
// besides its outcome (suppressions of bounced addresses, a retry's job),
// or nil when it makes none. The store picks the commit: an outcome alone
// shares a transaction and its multi-row statements with concurrent
// accepts and outcomes on both stores; one with statements of its own
// shares only on SQLite (inSharedOnSQLite), since those take locks that other
// writers wait for. On PostgreSQL the work may run twice (the first run
// rolled back), so own must not depend on what an earlier run changed in
// memory.
func (s *Store) RecordOutcome(ctx context.Context, o Outcome, events EventRecorder, own func(tx *Tx) error) error {
	work := outcomeWork(o, events, own)
	if own == nil {
		return s.inShared(ctx, work)
	}
	return s.inSharedOnSQLite(ctx, work)
}

// outcomeWork is one caller's work in RecordOutcome's transaction: o joins
// the transaction's outcome rows as its last step, once own succeeded
// (Tx.sharedWrites).
func outcomeWork(o Outcome, events EventRecorder, own func(tx *Tx) error) func(tx *Tx) error {
	return func(tx *Tx) error {
		if own != nil {
			if err := own(tx); err != nil {
				return err
			}
		}
		rows := tx.sharedWrites(outcomeRowsKey{}, func() flusher { return &outcomeRows{events: events} }).(*outcomeRows)
		rows.outcomes = append(rows.outcomes, o)
		return nil
	}
}

// outcomeRowsKey names a transaction's outcomeRows (Tx.sharedWrites).
type outcomeRowsKey struct{}

// outcomeRows is every attempt outcome of one transaction.
type outcomeRows struct {
	events   EventRecorder
	outcomes []Outcome
}

// Flush writes the recipients, then the emails, then per organization and
// mode the events, their webhook deliveries and the counters, which come
// last: their rows are shared by every email of an hour, so the shorter
// they stay locked before the commit, the better (flusher).
func (r *outcomeRows) Flush(ctx context.Context, tx *Tx) error {
	outcomes, err := r.claimed(ctx, tx)
	if err != nil {
		return err
	}
	var recipients []*carteiro.Recipient
	progress := make([]EmailProgress, len(outcomes))
	type orgMode struct{ org, mode string }
	var order []orgMode
	groups := map[orgMode][]EmailEvents{}
	for i, o := range outcomes {
		recipients = append(recipients, o.Recipients...)
		progress[i] = EmailProgress{Email: o.Email, FirstAttemptAt: o.FirstAttemptAt}
		k := orgMode{o.Email.OrgID, string(o.Email.Mode)}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], EmailEvents{Email: o.Email, Events: o.Events})
	}
	if err := tx.UpdateRecipients(ctx, recipients); err != nil {
		return err
	}
	if err := tx.UpdateEmailsProgress(ctx, progress); err != nil {
		return err
	}
	// Each group's counters are one upsert whose rows are locked in one
	// order; the groups go in one order too, so two transactions that
	// count for the same organizations cannot deadlock.
	slices.SortFunc(order, func(a, b orgMode) int { return cmp.Or(cmp.Compare(a.org, b.org), cmp.Compare(a.mode, b.mode)) })
	for _, k := range order {
		if err := r.events.RecordEventsOf(ctx, tx, groups[k]); err != nil {
			return err
		}
	}
	return nil
}

// claimed claims the emails of the outcomes that must claim theirs, with
// one statement, and returns the outcomes to write: those that claim
// nothing, and those whose claim took their email.
func (r *outcomeRows) claimed(ctx context.Context, tx *Tx) ([]Outcome, error) {
	var ids []string
	for _, o := range r.outcomes {
		if o.Claim {
			ids = append(ids, o.Email.ID)
		}
	}
	if len(ids) == 0 {
		return r.outcomes, nil
	}
	ok, err := tx.ClaimEmails(ctx, ids)
	if err != nil {
		return nil, err
	}
	kept := make([]Outcome, 0, len(r.outcomes))
	for _, o := range r.outcomes {
		if o.Claim {
			if !ok[o.Email.ID] {
				continue
			}
			// A second claim of the email in this transaction finds it
			// claimed and done, as it would in a later one.
			delete(ok, o.Email.ID)
		}
		kept = append(kept, o)
	}
	return kept, nil
}
