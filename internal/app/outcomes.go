package app

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// attemptOutcome is what one delivery attempt (real or simulated) writes
// once its result is known: its recipients, its email's progress and its
// timeline events, with their webhooks and counters.
type attemptOutcome struct {
	email          *carteiro.Email
	firstAttemptAt *time.Time
	recipients     []*carteiro.Recipient
	events         []*carteiro.EmailEvent
	// claim: the attempt has not claimed its email yet (a simulated one).
	// The flush claims it, and writes nothing of the outcome when the
	// email is no longer queued or processing: a cancel committed first.
	claim bool
}

// joinOutcome hands o to its transaction's outcomeRows, written just before
// the commit: attempts that share a transaction then write each table with
// one statement for all of them. As with every joined write, it must be
// the caller's last step in tx.
func (a *App) joinOutcome(tx *store.Tx, o attemptOutcome) {
	rows := tx.Joined(outcomeRowsKey{}, func() store.Flusher { return &outcomeRows{app: a} }).(*outcomeRows)
	rows.outcomes = append(rows.outcomes, o)
}

// outcomeRowsKey names a transaction's outcomeRows (store.Tx.Joined).
type outcomeRowsKey struct{}

// outcomeRows is every attempt outcome of one transaction.
type outcomeRows struct {
	app      *App
	outcomes []attemptOutcome
}

// Flush writes the recipients, then the emails, then per organization and
// mode the events, their webhook deliveries and the counters, which come
// last: their rows are shared by every email of an hour, so the shorter
// they stay locked before the commit, the better (store.Flusher).
func (r *outcomeRows) Flush(ctx context.Context, tx *store.Tx) error {
	outcomes, err := r.claimed(ctx, tx)
	if err != nil {
		return err
	}
	var recipients []*carteiro.Recipient
	progress := make([]store.EmailProgress, len(outcomes))
	type orgMode struct{ org, mode string }
	var order []orgMode
	groups := map[orgMode][]emailEvents{}
	for i, o := range outcomes {
		recipients = append(recipients, o.recipients...)
		progress[i] = store.EmailProgress{Email: o.email, FirstAttemptAt: o.firstAttemptAt}
		k := orgMode{o.email.OrgID, string(o.email.Mode)}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], emailEvents{email: o.email, events: o.events})
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
		if err := r.app.recordEventsOf(ctx, tx, groups[k]); err != nil {
			return err
		}
	}
	return nil
}

// claimed claims the emails of the outcomes that must claim theirs, with
// one statement, and returns the outcomes to write: those that claim
// nothing, and those whose claim took their email.
func (r *outcomeRows) claimed(ctx context.Context, tx *store.Tx) ([]attemptOutcome, error) {
	var ids []string
	for _, o := range r.outcomes {
		if o.claim {
			ids = append(ids, o.email.ID)
		}
	}
	if len(ids) == 0 {
		return r.outcomes, nil
	}
	ok, err := tx.ClaimEmails(ctx, ids)
	if err != nil {
		return nil, err
	}
	kept := make([]attemptOutcome, 0, len(r.outcomes))
	for _, o := range r.outcomes {
		if o.claim {
			if !ok[o.email.ID] {
				continue
			}
			// A second claim of the email in this transaction finds it
			// claimed and done, as it would in a later one.
			delete(ok, o.email.ID)
		}
		kept = append(kept, o)
	}
	return kept, nil
}
