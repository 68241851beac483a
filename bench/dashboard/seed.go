package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL through database/sql, for the copies
	_ "modernc.org/sqlite"             // the driver the service itself uses

	"github.com/carteiro/carteiro/bench/internal/apiclient"
)

// outcomes are the sandbox recipients' local parts (D30) the seed cycles
// through: mostly delivered, some opened and clicked, a few bounced,
// complained and failed, as a real log looks.
var outcomes = []string{"delivered", "delivered", "delivered", "delivered", "opened", "opened", "clicked", "bounced",
	"delivered", "complained", "delivered", "failed"}

// campaigns are the tag values the seed cycles through.
var campaigns = []string{"welcome", "reset", "receipt", "digest"}

// sendSeed sends n sandbox emails through POST /emails/batch, 100 a call.
func sendSeed(ctx context.Context, api *apiclient.Client, key string, n int) error {
	for first := 0; first < n; first += 100 {
		batch := make([]map[string]any, 100)
		for i := range batch {
			k := first + i
			batch[i] = map[string]any{
				"from":      "Bench <bench@dashboard.bench.example>",
				"to":        []string{fmt.Sprintf("%s+u%d@customers.example.com", outcomes[k%len(outcomes)], k)},
				"subject":   fmt.Sprintf("Your %s, number %d", campaigns[k%len(campaigns)], k),
				"html":      fmt.Sprintf("<p>Hello customer %d,</p><p>this is a %s email from the dashboard benchmark.</p>", k, campaigns[k%len(campaigns)]),
				"tags":      []map[string]string{{"name": "campaign", "value": campaigns[k%len(campaigns)]}},
				"isSandbox": true,
			}
		}
		if err := api.Call(ctx, http.MethodPost, "/v1/product/emails/batch", key, batch, nil); err != nil {
			return fmt.Errorf("seed batch at %d: %w", first, err)
		}
	}
	return nil
}

// openSQL opens the service's database for the copies: a second connection
// beside the service's own, which is idle meanwhile.
func openSQL(store, url string) (*sql.DB, error) {
	if store == "postgres" {
		db, err := sql.Open("pgx", url)
		if err == nil {
			// The server's connections are shared with the service's pool.
			db.SetMaxOpenConns(2)
		}
		return db, err
	}
	// A large page cache and no fsync on this connection's commits: the
	// copies insert at random places of the id indexes, and are setup, not
	// the service (whose own connections keep synchronous=FULL). Each
	// round's transaction takes the write lock first (BEGIN IMMEDIATE): one
	// that began reading would fail with SQLITE_BUSY_SNAPSHOT as soon as
	// the service wrote (a session's last use, the queue) in the meantime.
	return sql.Open("sqlite", "file:"+strings.TrimPrefix(url, "sqlite:")+
		"?_pragma=busy_timeout(30000)&_pragma=cache_size(-262144)&_pragma=synchronous(OFF)&_txlock=immediate")
}

// waitSettled waits until none of the organization's emails is still queued
// or sending: copies of an email in flight would stay in flight forever.
func waitSettled(ctx context.Context, db *sql.DB, orgID string) error {
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(250 * time.Millisecond) {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM emails WHERE org_id = '`+orgID+`' AND status IN ('queued', 'processing', 'scheduled')`).Scan(&n); err != nil {
			return fmt.Errorf("count emails in flight: %w", err)
		}
		if n == 0 {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("%d seeded emails still in flight after 5 minutes", n)
		}
	}
}

// growth is what grow did.
type growth struct {
	Emails int64
	Rounds int
	Took   time.Duration
}

// grow copies the organization's emails, with their recipients, timelines
// and tags, under new ids until it has target emails. Each round doubles
// them (the last one adds what is missing) in one transaction; round r's
// copies are r days older than their originals, so the log spans weeks
// and each day's page of the cursor is a real range of the index.
func grow(ctx context.Context, db *sql.DB, store, orgID string, target int64, progress func(string, ...any)) (growth, error) {
	start := time.Now()
	newID := `gen_random_uuid()::text`
	if store == "sqlite" {
		newID = `lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-a' ||
	substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))`
	}
	cols := map[string][]string{}
	for _, table := range []string{"emails", "email_recipients", "email_events", "email_tags"} {
		c, err := columns(ctx, db, table)
		if err != nil {
			return growth{}, err
		}
		cols[table] = c
	}
	g := growth{}
	for round := 1; ; round++ {
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM emails WHERE org_id = '`+orgID+`'`).Scan(&g.Emails); err != nil {
			return g, fmt.Errorf("count emails: %w", err)
		}
		if g.Emails >= target || ctx.Err() != nil {
			g.Took = time.Since(start)
			return g, ctx.Err()
		}
		n := min(g.Emails, target-g.Emails)
		progress("round %d: %d emails, adding %d (%.0f emails/s so far)", round, g.Emails, n, float64(g.Emails)/time.Since(start).Seconds())
		shift := fmt.Sprint(int64(round) * int64(24*time.Hour/time.Microsecond))
		stmts := []string{
			`DROP TABLE IF EXISTS grow_ids`,
			fmt.Sprintf(`CREATE TEMP TABLE grow_ids AS SELECT id AS old, %s AS new FROM emails WHERE org_id = '%s' LIMIT %d`, newID, orgID, n),
			copySQL("emails", cols["emails"], "e.id", map[string]string{"id": "g.new", "idempotency_key": "NULL",
				"created_at": "e.created_at - " + shift}),
			copySQL("email_recipients", cols["email_recipients"], "e.email_id", map[string]string{"email_id": "g.new"}),
			copySQL("email_events", cols["email_events"], "e.email_id", map[string]string{"id": newID, "email_id": "g.new",
				"created_at": "e.created_at - " + shift}),
			copySQL("email_tags", cols["email_tags"], "e.email_id", map[string]string{"email_id": "g.new"}),
			`DROP TABLE grow_ids`,
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return g, err
		}
		for _, s := range stmts {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				_ = tx.Rollback()
				return g, fmt.Errorf("grow: %w\n%s", err, s)
			}
		}
		if err := tx.Commit(); err != nil {
			return g, err
		}
		g.Rounds = round
	}
}

// copySQL inserts into table a copy of each of its rows whose key is in
// grow_ids, with the columns in replace given by expressions instead.
func copySQL(table string, cols []string, key string, replace map[string]string) string {
	exprs := make([]string, len(cols))
	for i, c := range cols {
		if r, ok := replace[c]; ok {
			exprs[i] = r
		} else {
			exprs[i] = "e." + c
		}
	}
	return fmt.Sprintf(`INSERT INTO %s (%s) SELECT %s FROM %s e JOIN grow_ids g ON g.old = %s`,
		table, strings.Join(cols, ", "), strings.Join(exprs, ", "), table, key)
}

// columns lists a table's columns in order, the same way on both stores.
func columns(ctx context.Context, db *sql.DB, table string) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT * FROM `+table+` LIMIT 0`)
	if err != nil {
		return nil, fmt.Errorf("columns of %s: %w", table, err)
	}
	defer rows.Close()
	return rows.Columns()
}

// analyze refreshes the planner's statistics after the copies, as
// autovacuum (PostgreSQL) or the service's own optimize would in time.
func analyze(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, `ANALYZE`)
	return err
}

// sampleEmailIDs picks n of the organization's email ids at random, the
// emails the users open.
func sampleEmailIDs(ctx context.Context, db *sql.DB, orgID string, n int) ([]string, error) {
	rows, err := db.QueryContext(ctx, fmt.Sprintf(`SELECT id FROM emails WHERE org_id = '%s' ORDER BY random() LIMIT %d`, orgID, n))
	if err != nil {
		return nil, fmt.Errorf("sample emails: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
