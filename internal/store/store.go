// Package store keeps Carteiro's data in SQLite or PostgreSQL. There is one
// implementation: every query is written once in portable SQL and run through
// a small runner over database/sql (SQLite) or pgx (PostgreSQL), so the two
// stores cannot drift apart; the schema, also written once, is applied by the
// embedded numbered migrations in migrations/.
package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Dialect names the database behind a Store.
type Dialect string

const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// Store is the handle on the database. Reads go to the read side; writes and
// transactions to the write side (for SQLite one connection, since SQLite
// has one writer at a time anyway and this avoids SQLITE_BUSY).
type Store struct {
	dialect Dialect

	// SQLite
	path    string // the database file, for its serving lock
	writeDB *sql.DB
	readDB  *sql.DB

	// PostgreSQL
	pool *pgxpool.Pool

	// shared runs the transactions that concurrent writers share (see
	// sharedcommit.go).
	shared *sharedCommitter
	// keyReads and domainReads coalesce the look-ups of every accept
	// (PostgreSQL only; see readbatch.go).
	keyReads    *readBatcher[string, keyAndOrg]
	domainReads *readBatcher[orgDomainName, VerifiedDomain]
	// gate orders suppressions against deliveries (SQLite only; see gate.go).
	gate *localGate
	// settled keeps the statistics of settled days (statscache.go).
	settled *settledDays

	*Queries // non-transactional queries (reads and single writes)
}

// Open connects to url: "sqlite:PATH" or "postgres://..." (D2, D56) and
// runs the migrations.
func Open(ctx context.Context, url string) (*Store, error) {
	switch {
	case strings.HasPrefix(url, "sqlite:"):
		return openSQLite(ctx, strings.TrimPrefix(url, "sqlite:"))
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		return openPostgres(ctx, url)
	default:
		return nil, fmt.Errorf("store: unsupported database URL %q: use sqlite:PATH or postgres://", redactURL(url))
	}
}

// Dialect tells which database this is.
func (s *Store) Dialect() Dialect { return s.dialect }

// SQLiteWriteDB is the single-connection pool River's SQLite driver uses; nil
// for PostgreSQL.
func (s *Store) SQLiteWriteDB() *sql.DB { return s.writeDB }

// Pool is the pgx pool River's PostgreSQL driver uses; nil for SQLite.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Ping checks that the database answers (GET /readyz).
func (s *Store) Ping(ctx context.Context) error {
	var one int
	if err := s.queryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("store: ping: %w", classify(err))
	}
	return nil
}

// Close releases every connection.
func (s *Store) Close() error {
	if s.shared != nil {
		s.shared.close()
	}
	if s.keyReads != nil {
		s.keyReads.close()
		s.domainReads.close()
	}
	if s.pool != nil {
		s.pool.Close()
		return nil
	}
	err := s.readDB.Close()
	if werr := s.writeDB.Close(); err == nil {
		err = werr
	}
	return err
}

// Tx is one database transaction. Queries run inside it; Raw gives the
// driver's own transaction (*sql.Tx or pgx.Tx) to the job queue, so a job is
// inserted in the same transaction as the rows it acts on (D2's durability).
type Tx struct {
	*Queries
	raw  any
	gate *localGate
	// gateHeld and afterEnd release SQLite's gate, and tell the copy of
	// settled statistics about a write, once the transaction ends.
	gateHeld bool
	afterEnd []func()
	// shared is the rows callers write once before the commit
	// (sharedWrites).
	shared []sharedWrite
	// scope is the running caller's savepoint in a shared commit's
	// transaction; nil in a transaction of one caller.
	scope *callerScope
}

// newTx is a transaction of s over q; raw is the driver's own.
func newTx(s *Store, q runner, raw any) *Tx {
	tx := &Tx{Queries: &Queries{q: q, dialect: s.dialect, settled: s.settled}, raw: raw, gate: s.gate}
	tx.endHooks = &tx.afterEnd
	return tx
}

func (t *Tx) end() {
	for _, f := range t.afterEnd {
		f()
	}
	t.afterEnd, t.gateHeld = nil, false
}

// pgSharedBegin starts a shared PostgreSQL transaction. A caller that waits
// on a lock (a row another transaction holds, a suppression's gate) would
// hold up every caller sharing the transaction, so waits are cut short and
// that caller runs again on its own (sharedcommit.go).
const pgSharedBegin = "BEGIN; SET LOCAL lock_timeout = '50ms'"

// InTx runs fn in a transaction, committing when fn returns nil. Commit
// returning nil means the data is on disk (SQLite synchronous=FULL,
// PostgreSQL synchronous_commit=on).
func (s *Store) InTx(ctx context.Context, fn func(tx *Tx) error) error {
	return s.inTx(ctx, false, fn)
}

// inTx is InTx; shared marks a shared commit's transaction, whose callers
// each get a savepoint (callerScope).
func (s *Store) inTx(ctx context.Context, shared bool, fn func(tx *Tx) error) error {
	if s.pool != nil {
		var opts pgx.TxOptions
		if shared {
			opts.BeginQuery = pgSharedBegin
		}
		var tx *Tx
		defer func() {
			if tx != nil {
				tx.end() // after the commit or the rollback
			}
		}()
		return pgx.BeginTxFunc(ctx, s.pool, opts, func(ptx pgx.Tx) error {
			tx = newTx(s, pgxRunner{ptx}, ptx)
			if shared {
				tx.share(uncancelableTx{ptx})
			}
			if err := fn(tx); err != nil {
				return err
			}
			return tx.flushSharedWrites(ctx)
		})
	}
	stx, err := s.writeDB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin: %w", classify(err))
	}
	defer func() { _ = stx.Rollback() }() // a no-op after Commit; frees the one write connection if fn panics
	tx := newTx(s, sqlRunner{stx}, stx)
	if shared {
		tx.share(stx)
	}
	defer tx.end()
	err = fn(tx)
	if err == nil {
		err = tx.flushSharedWrites(ctx)
	}
	if err != nil {
		_ = stx.Rollback()
		return err
	}
	if err := stx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", classify(err))
	}
	return nil
}

// share readies t for several callers: statements go through the running
// caller's savepoint, and the job queue gets raw.
func (t *Tx) share(raw any) {
	t.scope = &callerScope{q: t.q, dialect: t.dialect}
	t.q = scopedRunner{q: t.q, scope: t.scope}
	t.raw = raw
}

// Queries holds every query of the package, run through a runner: the
// store's own (reads and single writes) or a Tx's.
type Queries struct {
	q       runner
	dialect Dialect
	// w is the write side when it differs from q (SQLite outside a
	// transaction); nil means q takes writes too.
	w runner
	// settled is the store's copy of settled statistics (statscache.go).
	settled *settledDays
	// endHooks is the transaction's list of what runs once it has
	// committed or rolled back (Tx.afterEnd); nil outside a transaction.
	endHooks *[]func()
}

func (q *Queries) query(ctx context.Context, query string, args ...any) (rows, error) {
	return q.q.query(ctx, query, args...)
}

func (q *Queries) queryRow(ctx context.Context, query string, args ...any) row {
	return q.q.queryRow(ctx, query, args...)
}

func (q *Queries) exec(ctx context.Context, query string, args ...any) (int64, error) {
	if q.w != nil {
		return q.w.exec(ctx, query, args...)
	}
	return q.q.exec(ctx, query, args...)
}

// queryRowWrite is queryRow for INSERT/UPDATE ... RETURNING statements.
func (q *Queries) queryRowWrite(ctx context.Context, query string, args ...any) row {
	if q.w != nil {
		return q.w.queryRow(ctx, query, args...)
	}
	return q.q.queryRow(ctx, query, args...)
}

// queryWrite is query for INSERT/UPDATE ... RETURNING statements.
func (q *Queries) queryWrite(ctx context.Context, query string, args ...any) (rows, error) {
	if q.w != nil {
		return q.w.query(ctx, query, args...)
	}
	return q.q.query(ctx, query, args...)
}

func redactURL(url string) string {
	if i := strings.Index(url, "@"); i > 0 {
		if j := strings.Index(url, "://"); j > 0 && j < i {
			return url[:j+3] + "***" + url[i:]
		}
	}
	return url
}
