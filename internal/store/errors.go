package store

import (
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
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
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == "23505":
			return errors.Join(ErrConflict, err)
		case strings.HasPrefix(pgErr.Code, "53"), strings.HasPrefix(pgErr.Code, "08"), pgErr.Code == "57P01":
			return errors.Join(ErrUnavailable, err)
		}
		return err
	}
	var sqErr *sqlite.Error
	if errors.As(err, &sqErr) {
		switch code := sqErr.Code(); {
		case code == sqlite3.SQLITE_CONSTRAINT_UNIQUE, code == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return errors.Join(ErrConflict, err)
		// Extended codes keep the primary code in their low byte.
		case code&0xff == sqlite3.SQLITE_FULL, code&0xff == sqlite3.SQLITE_IOERR,
			code&0xff == sqlite3.SQLITE_READONLY, code&0xff == sqlite3.SQLITE_CANTOPEN:
			return errors.Join(ErrUnavailable, err)
		}
		return err
	}
	var connErr *pgconn.ConnectError
	if errors.As(err, &connErr) {
		return errors.Join(ErrUnavailable, err)
	}
	return err
}
