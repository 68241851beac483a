package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/carteiro/carteiro/internal/config"
	"github.com/carteiro/carteiro/internal/queue"
	"github.com/carteiro/carteiro/internal/store"
)

// errPostgresBackup names the tools that back PostgreSQL up (D79).
var errPostgresBackup = errors.New("the database is PostgreSQL: back it up with pg_dump (a logical copy), " +
	"or with base backups (pg_basebackup) and WAL archiving for point-in-time recovery; restore with pg_restore " +
	"or the server's recovery; see docs/operations.md")

// backup is `carteiro backup --to FILE` (D79).
func backup(ctx context.Context, args []string, stdout, stderr io.Writer, lookupEnv env) error {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	to := fs.String("to", "", "file to write the copy to (must not exist)")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if *to == "" || fs.NArg() > 0 {
		return usageError{"backup: want --to FILE"}
	}
	path, err := sqlitePath(lookupEnv)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := store.BackupSQLite(ctx, path, *to); err != nil {
		return err
	}
	st, err := os.Stat(*to)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backup of %s written to %s (%d bytes, %s)\n", path, *to, st.Size(), time.Since(start).Round(time.Millisecond))
	return nil
}

// restore is `carteiro restore --from FILE` (D79): with the service
// stopped, it checks the copy (integrity_check, then the migrations of this
// version) before putting it in place of the database.
func restore(ctx context.Context, args []string, stdout, stderr io.Writer, lookupEnv env) error {
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "", "backup file to restore")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if *from == "" || fs.NArg() > 0 {
		return usageError{"restore: want --from FILE"}
	}
	path, err := sqlitePath(lookupEnv)
	if err != nil {
		return err
	}
	r, err := store.BeginRestore(*from, path)
	if err != nil {
		return err
	}
	if err := checkCopy(ctx, r.Copy, stderr); err != nil {
		r.Abort()
		return fmt.Errorf("restore: %s is not a sound Carteiro database, nothing changed: %w", *from, err)
	}
	aside, err := r.Finish()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "restored %s from %s\n", path, *from)
	if aside != "" {
		fmt.Fprintf(stdout, "the previous database is kept as %s\n", aside)
	}
	return nil
}

// checkCopy opens the copy, runs integrity_check and the migrations (the
// service's and River's), and closes it.
func checkCopy(ctx context.Context, file string, stderr io.Writer) error {
	st, err := store.Open(ctx, "sqlite:"+file)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.IntegrityCheck(ctx); err != nil {
		return err
	}
	if _, err := st.Migrate(ctx); err != nil {
		return err
	}
	return queue.New(st, newLogger("", stderr, slog.LevelWarn)).Migrate(ctx)
}

// sqlitePath is the SQLite file of CARTEIRO_DATABASE_URL; PostgreSQL is
// refused with the tools to use instead.
func sqlitePath(lookupEnv env) (string, error) {
	cfg, err := config.Load(lookupEnv)
	if err != nil {
		return "", fmt.Errorf("settings: %w", err)
	}
	path := store.SQLitePath(cfg.DatabaseURL)
	if path == "" {
		return "", errPostgresBackup
	}
	return path, nil
}
