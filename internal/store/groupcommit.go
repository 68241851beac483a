package store

import (
	"context"
	"fmt"
	"sync"
)

// Group commit for SQLite. SQLite commits one transaction at a time and
// each commit waits for an fsync (synchronous=FULL), which caps durable
// writes near the disk's fsync rate. Concurrent callers of InGroupTx share
// one transaction instead: each runs inside its own savepoint, so its
// failure undoes only its own writes, and every caller is answered only
// after the shared commit is on disk. PostgreSQL already overlaps the WAL
// flushes of concurrent commits, so there InGroupTx is plain InTx.

// maxGroup bounds the callers that share one commit, so one slow batch
// cannot hold the single writer for long.
const maxGroup = 256

type groupReq struct {
	ctx  context.Context
	fn   func(tx *Tx) error
	done chan error
}

type groupCommitter struct {
	store *Store
	reqs  chan *groupReq
	stop  chan struct{}
	wg    sync.WaitGroup
	once  sync.Once
}

func newGroupCommitter(s *Store) *groupCommitter {
	g := &groupCommitter{store: s, reqs: make(chan *groupReq, maxGroup), stop: make(chan struct{})}
	g.wg.Add(1)
	go g.loop()
	return g
}

// InGroupTx runs fn in a transaction that concurrent callers may share. fn
// must only use tx, and its error is its own: it never fails another
// caller's work; a panic in fn becomes fn's error on both stores. A nil
// return means fn's writes are committed.
func (s *Store) InGroupTx(ctx context.Context, fn func(tx *Tx) error) error {
	if s.group == nil {
		return s.InTx(ctx, func(tx *Tx) error { return runGuarded(fn, tx) })
	}
	req := &groupReq{ctx: ctx, fn: fn, done: make(chan error, 1)}
	select {
	case s.group.reqs <- req:
	case <-s.group.stop:
		return fmt.Errorf("store: closed")
	case <-ctx.Done():
		return ctx.Err()
	}
	// Once queued the work runs to its end even if ctx ends: the caller
	// must learn whether it was committed.
	return <-req.done
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
		for len(batch) < maxGroup {
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

// run executes a batch in one transaction, one savepoint per caller.
func (g *groupCommitter) run(batch []*groupReq) {
	errs := make([]error, len(batch))
	err := g.store.InTx(context.Background(), func(tx *Tx) error {
		for i, r := range batch {
			if _, err := tx.exec(r.ctx, "SAVEPOINT g"); err != nil {
				return err
			}
			if errs[i] = runGuarded(r.fn, tx); errs[i] != nil {
				if _, err := tx.exec(context.Background(), "ROLLBACK TO SAVEPOINT g"); err != nil {
					return err
				}
			}
			if _, err := tx.exec(context.Background(), "RELEASE SAVEPOINT g"); err != nil {
				return err
			}
		}
		return nil
	})
	for i, r := range batch {
		if err != nil {
			// The shared commit failed: nobody's work is on disk.
			r.done <- err
			continue
		}
		r.done <- errs[i]
	}
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
