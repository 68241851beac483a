package testserver

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite" // the sqlite driver, for reading raw rows
)

// DumpDatabase returns every value of every row of every table in the
// database at url, as text, for tests that must prove what is NOT stored.
func DumpDatabase(t testing.TB, url string) string {
	t.Helper()
	ctx := context.Background()
	var out strings.Builder
	if path, ok := strings.CutPrefix(url, "sqlite:"); ok {
		db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
		if err != nil {
			t.Fatalf("open %s: %v", path, err)
		}
		defer db.Close()
		tables := sqliteTables(t, db)
		for _, table := range tables {
			rows, err := db.QueryContext(ctx, `SELECT * FROM "`+table+`"`)
			if err != nil {
				t.Fatalf("dump %s: %v", table, err)
			}
			dumpRows(t, &out, table, rows)
		}
		return out.String()
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`)
	if err != nil {
		t.Fatalf("list tables: %v", err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatalf("list tables: %v", err)
	}
	for _, table := range tables {
		rows, err := conn.Query(ctx, `SELECT * FROM "`+table+`"`)
		if err != nil {
			t.Fatalf("dump %s: %v", table, err)
		}
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				t.Fatalf("dump %s: %v", table, err)
			}
			fmt.Fprintf(&out, "%s: %v\n", table, vals)
		}
		rows.Close()
	}
	return out.String()
}

func sqliteTables(t testing.TB, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		t.Fatalf("list tables: %v", err)
	}
	defer rows.Close()
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	return tables
}

func dumpRows(t testing.TB, out *strings.Builder, table string, rows *sql.Rows) {
	t.Helper()
	defer rows.Close()
	cols, _ := rows.Columns()
	for rows.Next() {
		vals, err := scanValues(rows, len(cols))
		if err != nil {
			t.Fatalf("dump %s: %v", table, err)
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				vals[i] = string(b)
			}
		}
		fmt.Fprintf(out, "%s: %v\n", table, vals)
	}
}

// scanValues reads the current row of rows, one value per column.
func scanValues(rows *sql.Rows, columns int) ([]any, error) {
	vals := make([]any, columns)
	ptrs := make([]any, columns)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	return vals, nil
}
