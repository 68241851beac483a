package store

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
)

// Shared commit. Concurrent callers of inShared (and, on SQLite, of
// inSharedOnSQLite) share one transaction: each runs inside its own savepoint
// (callerScope), opened only if it runs a statement, so its failure undoes
// only its own writes, and every caller is answered only after the shared
// commit is on disk.
//
// On SQLite, which commits one transaction at a time and waits for an
// fsync for each (synchronous=FULL), this lifts the cap that the disk's
// fsync rate puts on durable writes. On PostgreSQL, which overlaps the WAL
// flushes of concurrent commits by itself, the gain is in statements: the
// callers of inShared (accepted emails, attempt outcomes, webhook
// successes) add their rows to shared writes (Tx.sharedWrites) and run no
// statement of their own, and each table is written with one multi-row
// statement for all of them. The fewer and larger those transactions, the
// fewer round trips: two loops, because one left PostgreSQL idle while the
// loop waited for its answers and four took accepts from an API node (the
// measurements are in docs/benchmarks-events.md and docs/benchmarks.md). A caller or a
// flush that waits on a lock past the transaction's lock_timeout is cut
// short and runs again in a transaction of its own, so no lock wait holds
// up the others, and the two transactions cannot wait on each other for
// long.

// sharedShape is how a store shares its commits.
type sharedShape struct {
	loops int // shared transactions at once
	// max bounds the callers of one transaction: one slow batch must not
	// hold SQLite's single writer for long, and on PostgreSQL a transaction
	// of more than 64 subtransactions (savepoints that wrote) makes every
	// other session's snapshots slower.
	max int
}

var (
	sqliteSharing   = sharedShape{loops: 1, max: 256}
	postgresSharing = sharedShape{loops: 2, max: 64}
)

type sharedReq struct {
	fn   func(tx *Tx) error
	done chan error
}

// errRunAlone tells a caller that its work was rolled back from the shared
// transaction (it waited on a lock, or the transaction failed in a way that
// a retry cures) and must run again in a transaction of its own.
var errRunAlone = errors.New("store: run again alone")

type sharedCommitter struct {
	store *Store
	shape sharedShape
	reqs  chan *sharedReq
	stop  chan struct{}
	wg    sync.WaitGroup
	once  sync.Once
}

func newSharedCommitter(s *Store, shape sharedShape) *sharedCommitter {
	g := &sharedCommitter{store: s, shape: shape, reqs: make(chan *sharedReq, shape.max), stop: make(chan struct{})}
	for range shape.loops {
		g.wg.Add(1)
		go g.loop()
	}
	return g
}

// inShared runs fn in a shared commit on both stores. fn must only use tx,
// and its error is its own: it never fails another caller's work; a panic
// in fn becomes fn's error. A nil return means fn's writes are committed.
// It suits callers whose writes are shared writes (Tx.sharedWrites) and who
// run few statements of their own, if any, and take no lock other writers
// hold for long. On PostgreSQL fn may run twice (the first run rolled
// back), so it must not depend on what an earlier run changed in memory.
func (s *Store) inShared(ctx context.Context, fn func(tx *Tx) error) error {
	g := s.shared
	req := &sharedReq{fn: fn, done: make(chan error, 1)}
	select {
	case g.reqs <- req:
	case <-g.stop:
		return fmt.Errorf("store: closed")
	case <-ctx.Done():
		return ctx.Err()
	}
	// Once queued the work runs to its end even if ctx ends: the caller
	// must learn whether it was committed.
	err := <-req.done
	if errors.Is(err, errRunAlone) {
		return s.inOwnTx(ctx, fn)
	}
	return err
}

// inSharedOnSQLite is inShared on SQLite; on PostgreSQL fn runs in a
// transaction of its own: its statements take locks other writers wait for
// (a suppression's gate, a job, a webhook's failure streak), and in a
// shared transaction those would be held until the shared commit.
func (s *Store) inSharedOnSQLite(ctx context.Context, fn func(tx *Tx) error) error {
	if s.pool != nil {
		return s.inOwnTx(ctx, fn)
	}
	return s.inShared(ctx, fn)
}

// inOwnTx runs a would-be sharer of a transaction in a transaction of its
// own, with the same promise: a panic in fn is its error.
func (s *Store) inOwnTx(ctx context.Context, fn func(tx *Tx) error) error {
	return s.InTx(ctx, func(tx *Tx) error { return runGuarded(fn, tx) })
}

func (g *sharedCommitter) loop() {
	defer g.wg.Done()
	for {
		var first *sharedReq
		select {
		case first = <-g.reqs:
		case <-g.stop:
			return
		}
		batch := []*sharedReq{first}
	drain:
		for len(batch) < g.shape.max {
			select {
			case r := <-g.reqs:
				batch = append(batch, r)
			default:
				break drain
			}
		}
		g.run(batch)
	}
}

// run executes a batch in one transaction, one savepoint per caller that
// touches the database. A caller alone needs no savepoint: its failure is
// the transaction's.
func (g *sharedCommitter) run(batch []*sharedReq) {
	errs := make([]error, len(batch))
	alone := len(batch) == 1
	err := g.store.inTx(context.Background(), true, func(tx *Tx) error {
		tx.scope.alone = alone
		for i, r := range batch {
			tx.scope.begin()
			errs[i] = runGuarded(r.fn, tx)
			if errs[i] != nil && (tx.scope.lockTimedOut || isLockTimeout(errs[i])) {
				errs[i] = errRunAlone
			}
			if alone {
				return errs[i]
			}
			if err := tx.scope.finish(errs[i] != nil); err != nil {
				return err
			}
		}
		return nil
	})
	for i, r := range batch {
		switch {
		case retryable(err):
			// Nobody's work is on disk, and running alone cures it.
			r.done <- errRunAlone
		case err != nil:
			// The commit failed, or the caller alone did: nobody's work
			// is on disk.
			r.done <- err
		default:
			r.done <- errs[i]
		}
	}
}

// retryable reports a failure of a whole shared transaction that running
// its callers again cures: a lock wait cut short outside any caller's
// savepoint (a flush), a deadlock or a serialization failure (PostgreSQL).
func retryable(err error) bool {
	if errors.Is(err, errRunAlone) {
		return true
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	switch pgErr.Code {
	case "55P03", "40P01", "40001":
		return true
	}
	return false
}

// runGuarded turns a panic in one caller's work into that caller's error,
// so it cannot take down the loop every other writer depends on.
func runGuarded(fn func(tx *Tx) error, tx *Tx) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("store: panic in a shared commit's caller: %v", v)
		}
	}()
	return fn(tx)
}

func (g *sharedCommitter) close() {
	g.once.Do(func() { close(g.stop) })
	g.wg.Wait()
	// Answer anyone still queued: their work never ran.
	for {
		select {
		case r := <-g.reqs:
			r.done <- fmt.Errorf("store: closed")
		default:
			return
		}
	}
}
