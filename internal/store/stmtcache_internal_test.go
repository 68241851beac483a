package store

import (
	"context"
	"testing"
)

// TestCachedStatementsReuseAndNest: a cached statement serves repeated
// queries, and the same query run while its rows are still open (nested)
// gets its own statement instead of clobbering the first.
func TestCachedStatementsReuseAndNest(t *testing.T) {
	db := openCachedSQLite("file:" + t.TempDir() + "/c.db?_pragma=journal_mode(WAL)")
	defer db.Close()
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if _, err := db.ExecContext(ctx, `INSERT INTO t (n) VALUES (?)`, i); err != nil {
			t.Fatal(err)
		}
	}
	const q = `SELECT n FROM t WHERE n >= ? ORDER BY n`
	// One transaction: the nested query runs on the same connection, with
	// the outer rows still open on the cached statement.
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	outer, err := tx.QueryContext(ctx, q, 1)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for outer.Next() {
		var n int
		if err := outer.Scan(&n); err != nil {
			t.Fatal(err)
		}
		got = append(got, n)
		// The same text, nested inside the open rows: must not disturb them.
		first := 0
		if err := tx.QueryRowContext(ctx, q, n).Scan(&first); err != nil {
			t.Fatal(err)
		}
		if first != n {
			t.Fatalf("nested query for %d = %d", n, first)
		}
	}
	if err := outer.Close(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] != 1 || got[2] != 3 {
		t.Fatalf("outer rows %v", got)
	}
	// Reuse after close, many times, with different arguments.
	for i := 0; i < 50; i++ {
		var n int
		if err := tx.QueryRowContext(ctx, q, 3).Scan(&n); err != nil || n != 3 {
			t.Fatalf("reuse %d: %d %v", i, n, err)
		}
	}
}
