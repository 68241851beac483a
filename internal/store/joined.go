package store

import (
	"context"
	"fmt"
)

// Flusher is work that several callers of one transaction add to and that
// is written once, just before the commit: with SQLite's shared commit the
// concurrent requests sharing a transaction can then write their rows with
// one multi-row statement per table instead of a few statements each.
type Flusher interface {
	Flush(ctx context.Context, tx *Tx) error
}

type joinedFlusher struct {
	key any
	f   Flusher
}

// Joined returns the Flusher kept under key in this transaction, creating
// it with mk on first use. Flushers run in the order they were created,
// after every caller's work and before the commit; an error from one fails
// the whole transaction, so nobody's work commits.
//
// A caller that shares the transaction (InGroupTx) runs in a savepoint that
// its own failure rolls back, but what it added to a Flusher stays: it must
// add only as its last step, once nothing else of its work can fail.
func (t *Tx) Joined(key any, mk func() Flusher) Flusher {
	for _, j := range t.joined {
		if j.key == key {
			return j.f
		}
	}
	f := mk()
	t.joined = append(t.joined, joinedFlusher{key: key, f: f})
	return f
}

// flushJoined runs the joined Flushers; a panic in one becomes its error,
// so it cannot take down the shared commit loop.
func (t *Tx) flushJoined(ctx context.Context) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("store: panic while flushing a transaction's joined writes: %v", v)
		}
	}()
	for _, j := range t.joined {
		if err := j.f.Flush(ctx, t); err != nil {
			return err
		}
	}
	return nil
}
