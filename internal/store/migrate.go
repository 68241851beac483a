package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one numbered file of migrations/. Most are plain SQL both
// databases accept; where they need different SQL a migration comes in two
// spellings, NNNN_name.sqlite.sql and NNNN_name.postgres.sql, and each
// database applies only its own.
type migration struct {
	version int64
	name    string
	sql     string
	dialect Dialect // "" when the file is for both
}

// migrationDialect is the database a file name is written for, "" for both.
func migrationDialect(name string) Dialect {
	for _, d := range []Dialect{SQLite, Postgres} {
		if strings.HasSuffix(name, "."+string(d)+".sql") {
			return d
		}
	}
	return ""
}

func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, fmt.Errorf("store: read migrations: %w", err)
	}
	var out []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		if !ok {
			return nil, fmt.Errorf("store: migration %s lacks a number prefix", e.Name())
		}
		v, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("store: migration %s: %w", e.Name(), err)
		}
		body, err := migrationFiles.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, fmt.Errorf("store: read migration %s: %w", e.Name(), err)
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(body), dialect: migrationDialect(e.Name())})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out, nil
}

// Migrate applies the migrations not yet applied, each in its own
// transaction. Several processes may start at once on one PostgreSQL
// database: an advisory lock makes them take turns.
func (s *Store) Migrate(ctx context.Context) (applied []string, err error) {
	all, err := loadMigrations()
	if err != nil {
		return nil, err
	}
	for _, m := range all {
		if m.dialect != "" && m.dialect != s.dialect {
			continue
		}
		done := false
		err := s.InTx(ctx, func(tx *Tx) error {
			if s.dialect == Postgres {
				if _, err := tx.exec(ctx, `SELECT pg_advisory_xact_lock(7301157)`); err != nil {
					return err
				}
			}
			// Created under the lock: PostgreSQL's IF NOT EXISTS is not safe
			// against a concurrent twin.
			if _, err := tx.exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT NOT NULL PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`); err != nil {
				return fmt.Errorf("create schema_migrations: %w", err)
			}
			var n int
			if err := tx.queryRow(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			for _, stmt := range splitStatements(m.sql) {
				if _, err := tx.exec(ctx, stmt); err != nil {
					return fmt.Errorf("%s: %w", firstLine(stmt), err)
				}
			}
			if _, err := tx.exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`, m.version, m.name, time.Now().UnixMicro()); err != nil {
				return err
			}
			done = true
			return nil
		})
		if err != nil {
			return applied, fmt.Errorf("store: migration %s: %w", m.name, classify(err))
		}
		if done {
			applied = append(applied, m.name)
		}
	}
	return applied, nil
}

// splitStatements cuts a migration file at semicolons that end a line,
// dropping comment lines. Migrations hold no procedural code.
func splitStatements(script string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(script, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "--") {
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
		if strings.HasSuffix(trimmed, ";") {
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		}
	}
	if rest := strings.TrimSpace(cur.String()); rest != "" {
		out = append(out, rest)
	}
	return out
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
