package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/carteiro/carteiro"
)

// database is a fresh, empty store for one run.
type database struct {
	URL  string
	drop func() error
}

// newDatabase makes a SQLite file in dir, or a new schema on the
// PostgreSQL server at pgURL selected through search_path (as the tests
// do); drop removes the schema.
func newDatabase(ctx context.Context, store, dir, pgURL string) (*database, error) {
	if store == "sqlite" {
		return &database{URL: "sqlite:" + filepath.Join(dir, "carteiro.db"), drop: func() error { return nil }}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, pgURL)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL at %s: %w", pgURL, err)
	}
	defer conn.Close(context.Background())
	schema := "bench_" + strings.ToLower(carteiro.RandomBase62(12))
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		return nil, fmt.Errorf("create schema %s: %w", schema, err)
	}
	sep := "?"
	if strings.Contains(pgURL, "?") {
		sep = "&"
	}
	drop := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, pgURL)
		if err != nil {
			return fmt.Errorf("drop schema %s: %w", schema, err)
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			return fmt.Errorf("drop schema %s: %w", schema, err)
		}
		return nil
	}
	return &database{URL: pgURL + sep + "search_path=" + schema, drop: drop}, nil
}
