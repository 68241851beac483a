package store

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
)

// maxBoundValues bounds the values of one statement, under both stores'
// limits on bound parameters (SQLite 32,766, PostgreSQL 65,535).
const maxBoundValues = 30000

// insertRows inserts rows into table with multi-row INSERT statements,
// as few as the bound-parameter limit allows. columns is the column list;
// every row has one value per column. Nothing happens for no rows.
func (q *Queries) insertRows(ctx context.Context, table, columns string, rows [][]any) error {
	if tx := q.ownPgxTx(); tx != nil && len(rows) >= copyMinRows {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{table}, columnNames(columns), pgx.CopyFromRows(rows)); err != nil {
			return classify(err)
		}
		return nil
	}
	return q.upsertRows(ctx, table, columns, "", rows)
}

// copyMinRows is how many rows make COPY worth its extra round trip (pgx
// asks for the table's column types first). A broadcast chunk's emails as
// multi-row INSERTs spent most of their time in PostgreSQL parsing and
// planning tens of thousands of parameters (docs/benchmarks-campaigns.md).
const copyMinRows = 50

// ownPgxTx is the PostgreSQL transaction q runs in when it is a plain
// one; nil on SQLite, outside a transaction and in a shared transaction,
// whose callers' statements go through their savepoints.
func (q *Queries) ownPgxTx() pgx.Tx {
	if pq, ok := q.q.(pgxRunner); ok {
		if tx, ok := pq.c.(pgx.Tx); ok {
			return tx
		}
	}
	return nil
}

// columnNames splits a column list as written in SQL.
func columnNames(columns string) []string {
	names := strings.Split(columns, ",")
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
	}
	return names
}

// qualified prefixes each column of a list with a table alias, for joins.
func qualified(alias, columns string) string {
	names := columnNames(columns)
	for i, n := range names {
		names[i] = alias + "." + n
	}
	return strings.Join(names, ", ")
}

// upsertRows is insertRows with an ON CONFLICT clause (onConflict, "" for
// none) after each statement's rows. Each statement takes its rows in
// order, so a caller that sorts its rows locks them in that order.
func (q *Queries) upsertRows(ctx context.Context, table, columns, onConflict string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	width := len(rows[0])
	placeholders := "(" + strings.TrimSuffix(strings.Repeat("?, ", width), ", ") + ")"
	perStatement := max(1, maxBoundValues/width)
	for start := 0; start < len(rows); start += perStatement {
		chunk := rows[start:min(start+perStatement, len(rows))]
		var b strings.Builder
		b.WriteString("INSERT INTO " + table + " (" + columns + ") VALUES ")
		args := make([]any, 0, len(chunk)*width)
		for i, r := range chunk {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(placeholders)
			args = append(args, r...)
		}
		if onConflict != "" {
			b.WriteString(" " + onConflict)
		}
		if _, err := q.exec(ctx, b.String(), args...); err != nil {
			return classify(err)
		}
	}
	return nil
}
