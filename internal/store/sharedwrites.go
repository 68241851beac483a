package store

import (
	"context"
	"fmt"
)

// flusher is a transaction's shared writes of one kind: rows that the
// callers of a shared commit add to, written once, just before the commit,
// with one multi-row statement per table instead of a few statements each.
type flusher interface {
	Flush(ctx context.Context, tx *Tx) error
}

// sharedWrite is one flusher of a transaction and the key it is kept under.
type sharedWrite struct {
	key any
	f   flusher
}

// sharedWrites returns the flusher kept under key in this transaction,
// creating it with mk on first use. Flushers run in the order they were
// created, after every caller's work and before the commit; an error from
// one fails the whole transaction, so nobody's work commits.
//
// A caller of a shared commit runs in a savepoint that its own failure
// rolls back, but what it added to a flusher stays: it must add only as its
// last step, once nothing else of its work can fail.
func (t *Tx) sharedWrites(key any, mk func() flusher) flusher {
	for _, w := range t.shared {
		if w.key == key {
			return w.f
		}
	}
	f := mk()
	t.shared = append(t.shared, sharedWrite{key: key, f: f})
	return f
}

// flushSharedWrites runs the transaction's flushers; a panic in one becomes
// its error, so it cannot take down the shared commit loop.
func (t *Tx) flushSharedWrites(ctx context.Context) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("store: panic while flushing a transaction's shared writes: %v", v)
		}
	}()
	for _, w := range t.shared {
		if err := w.f.Flush(ctx, t); err != nil {
			return err
		}
	}
	return nil
}
