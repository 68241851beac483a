package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// postgresAdminURL is the local PostgreSQL the benchmark makes its schema in.
const postgresAdminURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// database is a fresh, empty store for one run.
type database struct {
	URL    string
	schema string // PostgreSQL only: dropped by drop
}

// newDatabase returns a SQLite file in dir, or a new PostgreSQL schema;
// pgParams are appended to the PostgreSQL URL the server gets.
func newDatabase(ctx context.Context, store, dir, pgParams string) (*database, error) {
	switch store {
	case "sqlite":
		return &database{URL: "sqlite:" + filepath.Join(dir, "bench.db")}, nil
	case "postgres":
		schema := "bench_" + strings.ToLower(rand.Text()[:12])
		if err := postgresExec(ctx, "CREATE SCHEMA "+schema); err != nil {
			return nil, fmt.Errorf("create schema (is PostgreSQL running at %s?): %w", postgresAdminURL, err)
		}
		url := postgresAdminURL + "&search_path=" + schema
		if pgParams != "" {
			url += "&" + pgParams
		}
		return &database{URL: url, schema: schema}, nil
	default:
		return nil, fmt.Errorf("-store: want sqlite or postgres, got %q", store)
	}
}

// drop removes the PostgreSQL schema; the SQLite file goes with its
// temporary directory.
func (d *database) drop() error {
	if d.schema == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := postgresExec(ctx, "DROP SCHEMA "+d.schema+" CASCADE"); err != nil {
		return fmt.Errorf("drop schema %s: %w", d.schema, err)
	}
	return nil
}

func postgresExec(ctx context.Context, sql string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, postgresAdminURL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}
