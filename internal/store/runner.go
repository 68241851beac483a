package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// runner runs statements: the little that every query needs, implemented over
// database/sql (SQLite) and over pgx (PostgreSQL). Queries are written once,
// with ? placeholders, and rebound for PostgreSQL.
type runner interface {
	exec(ctx context.Context, query string, args ...any) (int64, error)
	query(ctx context.Context, query string, args ...any) (rows, error)
	queryRow(ctx context.Context, query string, args ...any) row
}

type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

type row interface {
	Scan(dest ...any) error
}

// sqlConn is what *sql.DB and *sql.Tx have in common.
type sqlConn interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

type sqlRunner struct{ c sqlConn }

func (q sqlRunner) exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := q.c.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (q sqlRunner) query(ctx context.Context, query string, args ...any) (rows, error) {
	r, err := q.c.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{r}, nil
}

func (q sqlRunner) queryRow(ctx context.Context, query string, args ...any) row {
	return q.c.QueryRowContext(ctx, query, args...)
}

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { _ = r.Rows.Close() }

// pgxConn is what *pgxpool.Pool and pgx.Tx have in common.
type pgxConn interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

type pgxRunner struct{ c pgxConn }

func (q pgxRunner) exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := q.c.Exec(ctx, rebind(query), args...)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

func (q pgxRunner) query(ctx context.Context, query string, args ...any) (rows, error) {
	r, err := q.c.Query(ctx, rebind(query), args...)
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (q pgxRunner) queryRow(ctx context.Context, query string, args ...any) row {
	return q.c.QueryRow(ctx, rebind(query), args...)
}

// rebind turns ? placeholders into PostgreSQL's $1, $2, ... Queries in this
// package never contain a literal question mark, so no quoting is tracked.
func rebind(query string) string {
	n := 0
	out := make([]byte, 0, len(query)+16)
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			out = append(out, '$')
			out = appendInt(out, n)
			continue
		}
		out = append(out, query[i])
	}
	return string(out)
}

func appendInt(b []byte, n int) []byte {
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}

// isNoRows reports the "no row" error of either driver.
func isNoRows(err error) bool {
	return errors.Is(err, sql.ErrNoRows) || errors.Is(err, pgx.ErrNoRows)
}
