package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// JobWriter writes queue jobs in a store transaction with the database's
// own driver. The queue implements it: the store knows which driver its
// transaction is and calls the matching method, so neither side passes the
// transaction around as an untyped value.
type JobWriter interface {
	WriteSQLite(ctx context.Context, tx *sql.Tx) error
	WritePostgres(ctx context.Context, tx pgx.Tx) error
}

// WriteJobs runs w in t as one of the running caller's statements: in a
// shared transaction it first opens that caller's savepoint, so a failed
// insert undoes only the caller's work.
func (t *Tx) WriteJobs(ctx context.Context, w JobWriter) error {
	if t.scope != nil {
		if err := t.scope.ensure(ctx); err != nil {
			return fmt.Errorf("store: savepoint: %w", classify(err))
		}
	}
	switch raw := t.raw.(type) {
	case pgx.Tx:
		return w.WritePostgres(ctx, raw)
	case *sql.Tx:
		return w.WriteSQLite(ctx, raw)
	}
	return fmt.Errorf("store: write jobs: unknown transaction type %T", t.raw)
}
