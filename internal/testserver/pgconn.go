package testserver

import (
	"context"
	"fmt"
	neturl "net/url"
	"strings"

	"github.com/jackc/pgx/v5"
)

// PostgresPoolMaxConns is the pool_max_conns that DatabaseURL puts in
// every PostgreSQL test database's URL: the most connections one test
// server (or store) opens, River's included. The e2e package runs up to
// -parallel subtests at once, some with two servers on one database, while
// another package's tests run beside it (go test -p); the worst case,
// written out in docs/architecture.md (Test suite), must stay under
// PostgreSQL's 100 connections. Deliveries wait for a free connection
// rather than fail, so a small pool only makes a busy test server queue.
const PostgresPoolMaxConns = 6

// PostgresServerMaxConns is the most connections one test server holds:
// its pool, and the one River's listener takes from the pool and keeps
// outside it (riverpgxv5 hijacks it for LISTEN).
const PostgresServerMaxConns = PostgresPoolMaxConns + 1

// DirectApplicationSuffix ends the application_name of the connections
// ConnectPostgres opens, so that counting a database's connections by its
// application_name counts the server's pool alone.
const DirectApplicationSuffix = "-direct"

// ConnectPostgres opens one connection to the database of url, a URL from
// DatabaseURL (or a server's Config.DatabaseURL). pgx.Connect sends every
// parameter it does not know to PostgreSQL as a setting, and PostgreSQL
// refuses pool_max_conns, so the pool's parameters are dropped first.
func ConnectPostgres(ctx context.Context, url string) (*pgx.Conn, error) {
	direct, err := directURL(url)
	if err != nil {
		return nil, err
	}
	return pgx.Connect(ctx, direct)
}

// directURL is url without pgxpool's parameters (pool_*), and with
// DirectApplicationSuffix after its application_name.
func directURL(url string) (string, error) {
	u, err := neturl.Parse(url)
	if err != nil {
		return "", fmt.Errorf("testserver: parse database URL: %w", err)
	}
	q := u.Query()
	for k := range q {
		if strings.HasPrefix(k, "pool_") {
			q.Del(k)
		}
	}
	if name := q.Get("application_name"); name != "" {
		q.Set("application_name", name+DirectApplicationSuffix)
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}
