package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"runtime"
)

// sqlitePragmas make every accepted write durable (D2: WAL with
// synchronous=FULL) and let readers wait for the writer instead of failing.
const sqlitePragmas = "_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)&_time_format=sqlite"

// writerCacheKiB is the single writer's page cache (negative: KiB), 64 MiB
// instead of SQLite's 2 MiB: every write walks the indexes it changes,
// and a bulk import or a shared commit of hundreds of emails touches more
// pages than 2 MiB hold, which then come back through system calls.
const writerCacheKiB = "-65536"

// escapePath makes a file path safe inside a file: URI.
func escapePath(path string) string { return (&url.URL{Path: path}).EscapedPath() }

func openSQLite(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, fmt.Errorf("store: empty SQLite path")
	}
	if path != ":memory:" {
		// Created here with mode 0600, the database gives the same mode to
		// the -wal and -shm files SQLite creates beside it (D64).
		if err := createPrivateFile(path); err != nil {
			// A file that cannot be created is SQLite's CANTOPEN: D11's 503.
			return nil, errors.Join(ErrUnavailable, err)
		}
	}
	base := "file:" + escapePath(path) + "?" + sqlitePragmas
	// Writers take the lock at BEGIN, so two transactions never deadlock
	// upgrading a read lock.
	writeDB := openCachedSQLite(base + "&_txlock=immediate&_pragma=cache_size(" + writerCacheKiB + ")")
	writeDB.SetMaxOpenConns(1)
	writeDB.SetMaxIdleConns(1)
	writeDB.SetConnMaxLifetime(0)
	writeDB.SetConnMaxIdleTime(0)

	readDB := openCachedSQLite(base + "&_pragma=query_only(1)")
	readDB.SetMaxOpenConns(max(4, runtime.GOMAXPROCS(0)*2))
	readDB.SetMaxIdleConns(max(4, runtime.GOMAXPROCS(0)*2))

	if err := writeDB.PingContext(ctx); err != nil {
		_ = writeDB.Close()
		_ = readDB.Close()
		return nil, fmt.Errorf("store: open SQLite %s: %w", path, classify(err))
	}
	s := &Store{dialect: SQLite, path: path, writeDB: writeDB, readDB: readDB, settled: newSettledDays()}
	s.Queries = &Queries{q: sqlRunner{readDB}, w: sqlRunner{writeDB}, dialect: SQLite, settled: s.settled}
	s.shared = newSharedCommitter(s, sqliteSharing)
	s.gate = &localGate{}
	return s, nil
}
