package store

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// callerScope gives each caller of a shared commit's transaction its
// own savepoint, so that its failure undoes only its own writes. The
// savepoint is opened lazily, just before the caller's first statement: a
// caller that only adds rows to the shared writes (an accepted email) costs
// no statement at all, and the transaction's writes are then the flushers'
// multi-row statements alone.
type callerScope struct {
	q       runner // the transaction itself, outside any wrapping
	dialect Dialect
	alone   bool // one caller has the transaction: no savepoints
	running bool // a caller is running
	open    bool // the running caller's savepoint exists
	// pending: on PostgreSQL a finished caller's savepoint is released
	// together with the next caller's SAVEPOINT, in one round trip (a
	// statement without arguments goes over the simple protocol, which
	// takes several); the commit releases the last one.
	pending bool
	// lockTimedOut: the running caller waited on a lock past the shared
	// transaction's lock_timeout (PostgreSQL).
	lockTimedOut bool
}

// begin starts a caller's turn.
func (c *callerScope) begin() {
	c.running, c.open, c.lockTimedOut = true, false, false
}

// ensure opens the running caller's savepoint before its first statement.
func (c *callerScope) ensure(ctx context.Context) error {
	if c.alone || !c.running || c.open {
		return nil
	}
	stmt := "SAVEPOINT g"
	if c.pending {
		stmt = "RELEASE SAVEPOINT g; SAVEPOINT g"
	}
	if _, err := c.q.exec(context.WithoutCancel(ctx), stmt); err != nil {
		return err
	}
	c.open, c.pending = true, false
	return nil
}

// note records what a statement's error says about the caller's turn.
func (c *callerScope) note(err error) {
	if isLockTimeout(err) {
		c.lockTimedOut = true
	}
}

// finish ends a caller's turn: a failed caller's writes are rolled back to
// its savepoint, a successful one's kept.
func (c *callerScope) finish(failed bool) error {
	open := c.open
	c.running, c.open = false, false
	if !open {
		return nil
	}
	ctx := context.Background()
	if failed {
		if _, err := c.q.exec(ctx, "ROLLBACK TO SAVEPOINT g"); err != nil {
			return err
		}
	}
	if c.dialect == Postgres {
		c.pending = true
		return nil
	}
	_, err := c.q.exec(ctx, "RELEASE SAVEPOINT g")
	return err
}

// isLockTimeout reports PostgreSQL's lock_not_available (55P03), what a
// statement gets when it waited on a lock past lock_timeout.
func isLockTimeout(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "55P03"
}

// scopedRunner runs a shared transaction's statements for its callers: it
// opens the running caller's savepoint first, and runs them without the
// caller's cancellation, because a cancelled statement can take the
// connection, and so every other caller's work, down with it; once queued,
// a caller's work runs to its end (inShared).
type scopedRunner struct {
	q     runner
	scope *callerScope
}

func (s scopedRunner) exec(ctx context.Context, query string, args ...any) (int64, error) {
	if err := s.scope.ensure(ctx); err != nil {
		return 0, err
	}
	n, err := s.q.exec(context.WithoutCancel(ctx), query, args...)
	s.scope.note(err)
	return n, err
}

func (s scopedRunner) query(ctx context.Context, query string, args ...any) (rows, error) {
	if err := s.scope.ensure(ctx); err != nil {
		return nil, err
	}
	r, err := s.q.query(context.WithoutCancel(ctx), query, args...)
	s.scope.note(err)
	return r, err
}

func (s scopedRunner) queryRow(ctx context.Context, query string, args ...any) row {
	if err := s.scope.ensure(ctx); err != nil {
		return errRow{err}
	}
	return scopedRow{s.q.queryRow(context.WithoutCancel(ctx), query, args...), s.scope}
}

// scopedRow notes the error a single-row query reports at Scan.
type scopedRow struct {
	row
	scope *callerScope
}

func (r scopedRow) Scan(dest ...any) error {
	err := r.row.Scan(dest...)
	r.scope.note(err)
	return err
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// uncancelableTx is a shared transaction as the job queue sees it
// (Tx.Raw): its statements ignore the caller's cancellation, like
// scopedRunner's.
type uncancelableTx struct{ pgx.Tx }

func (t uncancelableTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return t.Tx.Exec(context.WithoutCancel(ctx), sql, args...)
}

func (t uncancelableTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return t.Tx.Query(context.WithoutCancel(ctx), sql, args...)
}

func (t uncancelableTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return t.Tx.QueryRow(context.WithoutCancel(ctx), sql, args...)
}

func (t uncancelableTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	return t.Tx.SendBatch(context.WithoutCancel(ctx), b)
}

func (t uncancelableTx) CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error) {
	return t.Tx.CopyFrom(context.WithoutCancel(ctx), table, columns, src)
}

func (t uncancelableTx) Begin(ctx context.Context) (pgx.Tx, error) {
	inner, err := t.Tx.Begin(context.WithoutCancel(ctx))
	if err != nil {
		return nil, err
	}
	return uncancelableTx{inner}, nil
}
