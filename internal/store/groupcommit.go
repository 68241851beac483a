package store

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
)

// Group commit. Concurrent callers of InSharedTx (and, on SQLite, of
// InGroupTx) share one transaction: each
// runs inside its own savepoint (callerScope), so its failure undoes only
// its own writes, and every caller is answered only after the shared commit
// is on disk.
//
// On SQLite, which commits one transaction at a time and waits for an
// fsync for each (synchronous=FULL), this lifts the cap that the disk's
// fsync rate puts on durable writes. On PostgreSQL, which overlaps the WAL
// flushes of concurrent commits by itself, the gain is in statements: the
// accepted emails of every caller are written with one multi-row statement
// per table (Tx.Joined) instead of a transaction of six round trips each.
// PostgreSQL runs several shared transactions at once (postgresGroup); a
// caller that waits on a lock in one is cut short by its lock_timeout and
// runs again in a transaction of its own, so no lock wait holds up the
// others, and no two shared transactions can wait on each other for long.
// Callers whose writes are all joined (InJoinedTx: accepted emails) have a
// committer of their own there, one transaction at a time: they run no
// statement each, so the fewer and larger their transactions, the fewer
// round trips, and on a machine where a round trip costs more CPU than the
// statement it carries that won (API node at 32 clients: 1,418-1,447
// accepts/s with four loops, 1,754-2,206/s with two, 2,260-2,320/s with
// one; docs/benchmarks.md). Webhook successes run statements of their own
// in their savepoints, one after another, so one loop cut their rate to a
// third (67-77 against 215-249 deliveries/s): they keep four.

// groupShape is how a store shares its commits.
type groupShape struct {
	loops int // shared transactions at once
	// max bounds the callers of one transaction: one slow batch must not
	// hold SQLite's single writer for long, and on PostgreSQL a transaction
	// of more than 64 subtransactions (savepoints that wrote) makes every
	// other session's snapshots slower.
	max int
}

var (
	sqliteGroup    = groupShape{loops: 1, max: 256}
	postgresGroup  = groupShape{loops: 4, max: 64}
	postgresJoined = groupShape{loops: 1, max: 64}
)

type groupReq struct {
	fn   func(tx *Tx) error
	done chan error
}

// errRunAlone tells a caller that its work was rolled back from the shared
// transaction (it waited on a lock, or the transaction failed in a way that
// a retry cures) and must run again in a transaction of its own.
var errRunAlone = errors.New("store: run again alone")

type groupCommitter struct {
	store *Store
	shape groupShape
	reqs  chan *groupReq
	stop  chan struct{}
	wg    sync.WaitGroup
	once  sync.Once
}

func newGroupCommitter(s *Store, shape groupShape) *groupCommitter {
	g := &groupCommitter{store: s, shape: shape, reqs: make(chan *groupReq, shape.max), stop: make(chan struct{})}
	for range shape.loops {
		g.wg.Add(1)
		go g.loop()
	}
	return g
}

// InGroupTx runs fn in a transaction that concurrent callers may share on
// SQLite. fn must only use tx, and its error is its own: it never fails
// another caller's work; a panic in fn becomes fn's error on both stores. A
// nil return means fn's writes are committed. On PostgreSQL fn runs in a
// transaction of its own: a delivery's or a tracking hit's writes take the
// locks of the statistics counters, which callers in different shared
// transactions would wait on each other for (measured: accepts fell from
// 650/s to 260/s beside deliveries), so there only InSharedTx shares.
func (s *Store) InGroupTx(ctx context.Context, fn func(tx *Tx) error) error {
	if s.pool != nil {
		return s.inOwnTx(ctx, fn)
	}
	return s.InSharedTx(ctx, fn)
}

// inOwnTx runs a would-be sharer of a transaction in a transaction of its
// own, with the same promise: a panic in fn is its error.
func (s *Store) inOwnTx(ctx context.Context, fn func(tx *Tx) error) error {
	return s.InTx(ctx, func(tx *Tx) error { return runGuarded(fn, tx) })
}

// InSharedTx is InGroupTx sharing transactions on both stores, for callers
// that take no lock other writers hold: successful webhook attempts, whose
// rows are their own. On PostgreSQL fn may run twice (the first run rolled
// back), so it must not depend on what an earlier run changed in memory.
func (s *Store) InSharedTx(ctx context.Context, fn func(tx *Tx) error) error {
	return s.inShared(ctx, s.group, fn)
}

// InJoinedTx is InSharedTx for callers whose writes are joined (Tx.Joined)
// and who run few statements of their own, if any: accepted emails. On
// PostgreSQL they share one transaction at a time, apart from the other
// sharers; on SQLite every sharer has the one writer's committer.
func (s *Store) InJoinedTx(ctx context.Context, fn func(tx *Tx) error) error {
	g := s.group
	if s.joined != nil {
		g = s.joined
	}
	return s.inShared(ctx, g, fn)
}

func (s *Store) inShared(ctx context.Context, g *groupCommitter, fn func(tx *Tx) error) error {
	req := &groupReq{fn: fn, done: make(chan error, 1)}
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

func (g *groupCommitter) loop() {
	defer g.wg.Done()
	for {
		var first *groupReq
		select {
		case first = <-g.reqs:
		case <-g.stop:
			return
		}
		batch := []*groupReq{first}
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
func (g *groupCommitter) run(batch []*groupReq) {
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
			err = fmt.Errorf("store: panic in grouped transaction: %v", v)
		}
	}()
	return fn(tx)
}

func (g *groupCommitter) close() {
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
