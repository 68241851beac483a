package store

import (
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/puddle/v2"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrNotFound is returned when a row that was asked for does not exist.
var ErrNotFound = errors.New("store: not found")

// ErrConflict is returned when a write breaks a uniqueness rule.
var ErrConflict = errors.New("store: unique constraint violated")

// ErrUnavailable wraps failures that mean the database cannot take writes
// now (disk full, read-only, connection refused): D11's 503.
var ErrUnavailable = errors.New("store: unavailable")

// classify maps driver errors onto the package's sentinel errors, keeping the
// original for the logs.
func classify(err error) error {
	if err == nil {
		return nil
	}
	if isNoRows(err) {
		return ErrNotFound
	}
	if errors.Is(err, ErrUnavailable) {
		return err
	}
	// Unavailability first: a failed connect wraps the server's PgError
	// (57P03 while PostgreSQL starts), which is not a statement's error.
	if IsUnavailable(err) {
		return errors.Join(ErrUnavailable, err)
	}
	if isUniqueViolation(err) {
		return errors.Join(ErrConflict, err)
	}
	return err
}

// IsUnavailable reports whether err means the database could not be reached
// or cannot take work now, so that nothing was committed and the caller may
// try again later (D11's 503). It knows every shape seen while PostgreSQL
// restarted or was cut off mid-load, whichever path the error took: a
// refused or failed connect, the server's shutdown and start-up codes, a
// connection that broke mid-statement, a closed pool; and SQLite's full,
// read-only or unreadable file.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrUnavailable) {
		return true
	}
	var connErr *pgconn.ConnectError
	if errors.As(err, &connErr) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return unavailableSQLState(pgErr.Code)
	}
	var sqErr *sqlite.Error
	if errors.As(err, &sqErr) {
		// Extended codes keep the primary code in their low byte.
		switch sqErr.Code() & 0xff {
		case sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN:
			return true
		}
		return false
	}
	return brokenConnection(err)
}

// unavailableSQLState is true for the SQLSTATE classes that say the server,
// not the statement, failed: connection exceptions (08), insufficient
// resources (53), operator intervention short of a cancelled query
// (57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now,
// 57P04 database dropped) and system errors (58).
func unavailableSQLState(code string) bool {
	switch {
	case strings.HasPrefix(code, "08"), strings.HasPrefix(code, "53"), strings.HasPrefix(code, "58"):
		return true
	case code == "57P01", code == "57P02", code == "57P03", code == "57P04":
		return true
	}
	return false
}

// brokenConnection is true for a connection to the database that was lost
// or could not be used: the socket's own errors, and pgx's and its pool's
// words for a connection or pool already closed.
func brokenConnection(err error) bool {
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED),
		errors.Is(err, net.ErrClosed), errors.Is(err, pgconn.ErrConnClosed),
		errors.Is(err, puddle.ErrClosedPool):
		return true
	}
	var opErr *net.OpError
	return errors.As(err, &opErr)
}

// isUniqueViolation is true for a write that broke a uniqueness rule.
func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "23505"
	}
	var sqErr *sqlite.Error
	if errors.As(err, &sqErr) {
		code := sqErr.Code()
		return code == sqlite3.SQLITE_CONSTRAINT_UNIQUE || code == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}
