package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"

	_ "modernc.org/sqlite" // the driver the server itself uses
)

// uuidSQL is a random UUID-shaped id in SQLite's SQL.
const uuidSQL = `lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-a' ||
	substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))`

// grownHTML is the html of every email the growth adds: about 6 KB of
// random text, the size of a typical transactional email's HTML, random so
// that no page is like another.
const grownHTML = `'<html><body><p>' || hex(randomblob(3000)) || '</p></body></html>'`

// growSQLite grows the SQLite database at path (the server stopped) to at
// least target bytes by copying its emails with their recipients and
// timelines under new ids, each copy a little older than its original and
// with a 6 KB html body, so the file looks like a service that ran for
// months. It returns the number of emails in the end. Rows are added in
// rounds of one transaction each, without a WAL: this is setup, not the
// service.
func growSQLite(ctx context.Context, path string, target int64, progress func(string, ...any)) (int64, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(DELETE)&_pragma=synchronous(OFF)")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	emailCols, err := columns(ctx, db, "emails")
	if err != nil {
		return 0, err
	}
	rcptCols, err := columns(ctx, db, "email_recipients")
	if err != nil {
		return 0, err
	}
	eventCols, err := columns(ctx, db, "email_events")
	if err != nil {
		return 0, err
	}
	for round := 1; ; round++ {
		size, err := fileSize(path)
		if err != nil {
			return 0, err
		}
		var count int64
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM emails`).Scan(&count); err != nil {
			return 0, err
		}
		if size >= target {
			return count, nil
		}
		// Each copy adds about 7 KB; copy no more than the target needs.
		n := min(count, (target-size)/7000+1000)
		progress("growing %s: %s emails, %d MB; adding %s", path, thousands(count), size>>20, thousands(n))
		shift := int64(round) * 3_600_000_000 // an hour per round, in microseconds
		stmts := []string{
			`DROP TABLE IF EXISTS temp.grow`,
			fmt.Sprintf(`CREATE TEMP TABLE grow AS SELECT id AS old, %s AS new FROM emails ORDER BY random() LIMIT %d`, uuidSQL, n),
			copySQL("emails", emailCols, "e", "e.id", map[string]string{"id": "g.new", "html": grownHTML,
				"created_at": fmt.Sprintf("e.created_at - %d", shift)}),
			copySQL("email_recipients", rcptCols, "e", "e.email_id", map[string]string{"email_id": "g.new"}),
			copySQL("email_events", eventCols, "e", "e.email_id", map[string]string{"id": uuidSQL, "email_id": "g.new",
				"created_at": fmt.Sprintf("e.created_at - %d", shift)}),
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return 0, err
		}
		for _, s := range stmts {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				_ = tx.Rollback()
				return 0, fmt.Errorf("grow: %w\n%s", err, s)
			}
		}
		if err := tx.Commit(); err != nil {
			return 0, err
		}
	}
}

// copySQL inserts into table a copy of each of its rows whose key (an
// expression on alias) is in temp.grow, with the columns in replace given
// by expressions instead of copied.
func copySQL(table string, cols []string, alias, key string, replace map[string]string) string {
	exprs := make([]string, len(cols))
	for i, c := range cols {
		if r, ok := replace[c]; ok {
			exprs[i] = r
		} else {
			exprs[i] = alias + "." + c
		}
	}
	return fmt.Sprintf(`INSERT INTO %s (%s) SELECT %s FROM %s %s JOIN temp.grow g ON g.old = %s`,
		table, strings.Join(cols, ", "), strings.Join(exprs, ", "), table, alias, key)
}

// columns lists a table's columns in order.
func columns(ctx context.Context, db *sql.DB, table string) ([]string, error) {
	rs, err := db.QueryContext(ctx, `SELECT name FROM pragma_table_info(?) ORDER BY cid`, table)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []string
	for rs.Next() {
		var c string
		if err := rs.Scan(&c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("table %s has no columns", table)
	}
	return out, rs.Err()
}

func fileSize(path string) (int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}
