// Package database makes the fresh, empty store of one benchmark run: a
// SQLite file, or a new schema on a PostgreSQL server selected through
// search_path as the tests do.
package database

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/carteiro/carteiro"
)

// Database is a fresh, empty store for one run.
type Database struct {
	URL    string // what the service gets as CARTEIRO_DATABASE_URL
	admin  string // PostgreSQL only: where the schema is made and dropped
	schema string // PostgreSQL only: dropped by Drop
}

// DefaultPostgresURL is the machine's PostgreSQL, or the one the tests are
// told to use.
func DefaultPostgresURL() string {
	if u := os.Getenv("CARTEIRO_TEST_POSTGRES_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
}

// New makes a SQLite file in dir (store "sqlite"), or a new schema on the
// PostgreSQL server at pgURL (store "postgres"); pgParams, when not empty,
// are appended to the URL the service gets.
func New(ctx context.Context, store, dir, pgURL, pgParams string) (*Database, error) {
	switch store {
	case "sqlite":
		return &Database{URL: "sqlite:" + filepath.Join(dir, "carteiro.db")}, nil
	case "postgres":
	default:
		return nil, fmt.Errorf("-store: want sqlite or postgres, got %q", store)
	}
	schema := "bench_" + strings.ToLower(carteiro.RandomBase62(12))
	if err := exec(ctx, pgURL, "CREATE SCHEMA "+schema); err != nil {
		return nil, fmt.Errorf("create schema (is PostgreSQL running at %s?): %w", pgURL, err)
	}
	sep := "?"
	if strings.Contains(pgURL, "?") {
		sep = "&"
	}
	url := pgURL + sep + "search_path=" + schema
	if pgParams != "" {
		url += "&" + pgParams
	}
	return &Database{URL: url, admin: pgURL, schema: schema}, nil
}

// Drop removes the PostgreSQL schema; the SQLite file goes with its
// temporary directory.
func (d *Database) Drop() error {
	if d.schema == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := exec(ctx, d.admin, "DROP SCHEMA "+d.schema+" CASCADE"); err != nil {
		return fmt.Errorf("drop schema %s: %w", d.schema, err)
	}
	return nil
}

func exec(ctx context.Context, url, sql string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}
