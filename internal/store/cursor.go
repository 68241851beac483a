package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// cutPage applies D27's rule to rows fetched newest first with limit+1:
// a page never splits rows that share one createdAt. It ends before such a
// group or, when the group alone exceeds the limit, holds the whole group
// (fetched by wholeGroup). It returns the page and the next cursor (nil on
// the last page).
func cutPage[T any](rows []T, limit int, createdAt func(T) time.Time, wholeGroup func(time.Time) ([]T, error)) ([]T, *time.Time, error) {
	if len(rows) <= limit {
		return rows, nil, nil
	}
	boundary := createdAt(rows[limit])
	page := rows[:limit]
	cut := len(page)
	for cut > 0 && createdAt(page[cut-1]).Equal(boundary) {
		cut--
	}
	if cut == 0 {
		var err error
		if page, err = wholeGroup(boundary); err != nil {
			return nil, nil, err
		}
	} else {
		page = page[:cut]
	}
	next := createdAt(page[len(page)-1])
	return page, &next, nil
}

// listQuery is one listing of rows newest first (D27): what names it in
// errors, selectFrom is "SELECT columns FROM table", createdCol the
// creation-time column the cursor walks.
type listQuery[T any] struct {
	what, selectFrom, createdCol string
	scan                         func(row) (T, error)
	createdAt                    func(T) time.Time
}

// page returns the rows matching where (with args) created before after
// (when set), cut by cutPage, and the next cursor.
func (l listQuery[T]) page(ctx context.Context, q *Queries, where string, args []any, after *time.Time, limit int) ([]T, *time.Time, error) {
	if after != nil {
		where += " AND " + l.createdCol + " < ?"
		args = append(append([]any{}, args...), micros(*after))
	}
	rows, err := l.rows(ctx, q, where, args, limit+1)
	if err != nil {
		return nil, nil, err
	}
	return cutPage(rows, limit, l.createdAt, func(at time.Time) ([]T, error) {
		return l.rows(ctx, q, where+" AND "+l.createdCol+" = ?", append(append([]any{}, args...), micros(at)), -1)
	})
}

func (l listQuery[T]) rows(ctx context.Context, q *Queries, where string, args []any, limit int) ([]T, error) {
	query := l.selectFrom + ` WHERE ` + where + ` ORDER BY ` + l.createdCol + ` DESC, ` + strings.TrimSuffix(l.createdCol, "created_at") + `id DESC`
	if limit > 0 {
		query += ` LIMIT ?`
		args = append(args, limit)
	}
	rs, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list %s: %w", l.what, classify(err))
	}
	defer rs.Close()
	var out []T
	for rs.Next() {
		v, err := l.scan(rs)
		if err != nil {
			return nil, fmt.Errorf("store: list %s: %w", l.what, classify(err))
		}
		out = append(out, v)
	}
	return out, rs.Err()
}
