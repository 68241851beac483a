package store

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The suppression gate orders a suppression's commit against deliveries in
// flight to the same address, so that no message reaches a recipient after
// its suppression committed: a delivery holds the address's gate shared
// from its suppression check until the SMTP conversation ends; adding a
// suppression holds it exclusively until its commit. PostgreSQL uses
// advisory locks, which every process sharing the database sees; SQLite
// (one process) uses striped in-process locks.

// gateKey maps an organization's address to a lock key.
func gateKey(orgID, email string) int64 {
	h := fnv.New64a()
	h.Write([]byte(orgID))
	h.Write([]byte{0})
	h.Write([]byte(strings.ToLower(email)))
	return int64(h.Sum64() >> 1)
}

// localGate is SQLite's gate: one lock for every address. Per-address
// stripes would let a group-commit batch, which takes its suppressions'
// locks in arrival order, deadlock against a delivery taking them sorted;
// with one lock a suppression simply waits for the SMTP conversations in
// flight to end.
type localGate struct{ mu sync.RWMutex }

// DeliveryGate is held by a delivery from its suppression check until its
// SMTP conversation ends.
type DeliveryGate struct {
	orgID   string
	emails  []string
	queries *Queries
	release func()
	// PostgreSQL: the gate's connection and lock keys. The locks are taken
	// by Suppressed, in the same round trip as the check.
	conn *pgxpool.Conn
	keys []int64
}

// Suppressed checks, under the gate, which of the gated addresses have an
// active suppression in one of categories. It must come before the SMTP
// conversation: on PostgreSQL it is what takes the locks, then checks, in
// one round trip (the check's snapshot is taken once the locks are held,
// so it sees every suppression that committed before them).
func (g *DeliveryGate) Suppressed(ctx context.Context, categories []string, now time.Time) (map[string]bool, error) {
	if g.conn == nil {
		return g.queries.SuppressedAmong(ctx, g.orgID, g.emails, categories, now)
	}
	batch := &pgx.Batch{}
	for _, k := range g.keys {
		batch.Queue(`SELECT pg_advisory_lock_shared($1)`, k)
	}
	query, args := suppressedAmongQuery(g.orgID, g.emails, categories, now)
	batch.Queue(rebind(query), args...)
	g.keys = nil // taken, or to be dropped by Release whatever happens next
	results := g.conn.SendBatch(ctx, batch)
	defer results.Close()
	for range batch.Len() - 1 {
		if _, err := results.Exec(); err != nil {
			return nil, fmt.Errorf("store: gate: %w", classify(err))
		}
	}
	rs, err := results.Query()
	if err != nil {
		return nil, fmt.Errorf("store: suppressed: %w", classify(err))
	}
	defer rs.Close()
	return scanSuppressed(rs)
}

// Release lets suppressions of these addresses commit.
func (g *DeliveryGate) Release() { g.release() }

// HoldForDelivery prepares the gates of emails, shared: SQLite takes its
// lock here, PostgreSQL with the check (Suppressed). Hold it only around
// the check and the SMTP conversation, never around a write: a suppression
// waiting for the gate may be holding SQLite's only writer.
func (s *Store) HoldForDelivery(ctx context.Context, orgID string, emails []string) (*DeliveryGate, error) {
	keys := make([]int64, 0, len(emails))
	for _, e := range emails {
		keys = append(keys, gateKey(orgID, e))
	}
	slices.Sort(keys) // one order everywhere: no deadlock between holders
	keys = slices.Compact(keys)
	g := &DeliveryGate{orgID: orgID, emails: emails}
	if s.pool == nil {
		s.gate.mu.RLock()
		g.queries, g.release = s.Queries, s.gate.mu.RUnlock
		return g, nil
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: gate connection: %w", classify(err))
	}
	g.conn, g.keys = conn, keys
	g.release = func() {
		// Unlocking all is harmless when the check never ran.
		if _, err := conn.Exec(context.Background(), `SELECT pg_advisory_unlock_all()`); err != nil {
			// A connection whose locks could not be dropped must not return
			// to the pool holding them.
			_ = conn.Conn().Close(context.Background())
		}
		conn.Release()
	}
	return g, nil
}

// HoldForSuppression takes an address's gate exclusively until tx ends
// (PostgreSQL: an advisory transaction lock; SQLite: released after the
// commit or rollback).
func (t *Tx) HoldForSuppression(ctx context.Context, orgID, email string) error {
	if t.gate != nil {
		if !t.gateHeld {
			t.gate.mu.Lock()
			t.gateHeld = true
			t.afterEnd = append(t.afterEnd, t.gate.mu.Unlock)
		}
		return nil
	}
	if _, err := t.exec(ctx, `SELECT pg_advisory_xact_lock(?)`, gateKey(orgID, email)); err != nil {
		return fmt.Errorf("store: gate: %w", classify(err))
	}
	return nil
}
