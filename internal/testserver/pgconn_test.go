package testserver

import (
	"context"
	neturl "net/url"
	"strconv"
	"testing"
	"time"
)

// TestPostgresDatabaseURLCapsThePoolAndStillConnects: the URL of a
// PostgreSQL test database carries pool_max_conns (the cap the e2e
// package's -parallel rests on) and an application_name, and the harness's
// own connection to it, which pgx.Connect refuses while pool_max_conns is
// in the URL, reaches that database's schema under its own name.
func TestPostgresDatabaseURLCapsThePoolAndStillConnects(t *testing.T) {
	url := DatabaseURL(t, Postgres)
	u, err := neturl.Parse(url)
	Must(t, err == nil, "parse %s: %v", url, err)
	q := u.Query()
	Must(t, q.Get("pool_max_conns") == strconv.Itoa(PostgresPoolMaxConns), "pool_max_conns=%q, want %d", q.Get("pool_max_conns"), PostgresPoolMaxConns)
	schema := q.Get("search_path")
	Must(t, schema != "" && q.Get("application_name") == schema, "application_name=%q, want the schema %q", q.Get("application_name"), schema)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := ConnectPostgres(ctx, url)
	Must(t, err == nil, "connect: %v", err)
	defer conn.Close(context.Background())
	var current, name string
	err = conn.QueryRow(ctx, `SELECT current_schema(), current_setting('application_name')`).Scan(&current, &name)
	Must(t, err == nil, "query: %v", err)
	Must(t, current == schema, "current schema %q, want %q", current, schema)
	Must(t, name == schema+DirectApplicationSuffix, "application_name %q, want %q", name, schema+DirectApplicationSuffix)
}
