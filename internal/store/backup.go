package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite"
)

// Backups of a SQLite database (D79). PostgreSQL has its own tools
// (pg_dump, base backups with WAL archiving); the command refuses it.

// SQLitePath is the file of a sqlite: database URL, or "" for any other.
func SQLitePath(url string) string {
	path, ok := strings.CutPrefix(url, "sqlite:")
	if !ok {
		return ""
	}
	return path
}

// BackupSQLite writes a consistent copy of the SQLite database at path to
// `to` while the service keeps running, with SQLite's online backup API:
// it copies pages as they are, without rebuilding tables and indexes as
// VACUUM INTO did (3.9 to 4.6 times `cp`; docs/benchmarks.md). See
// copyPages for how it stays consistent and out of the service's way. The
// copy is written under a temporary name, synced, and renamed, so `to` is
// either absent or whole; it is created with mode 0600 since it holds
// every secret of the database. An existing `to` is refused.
func BackupSQLite(ctx context.Context, path, to string) error {
	if _, err := os.Lstat(to); err == nil {
		return fmt.Errorf("backup: %s exists; choose a new file", to)
	}
	partial := to + ".partial"
	f, err := os.OpenFile(partial, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("backup: create %s: %w", partial, err)
	}
	_ = f.Close()
	done := false
	defer func() {
		if !done {
			for _, suffix := range []string{"", "-journal", "-wal", "-shm"} {
				_ = os.Remove(partial + suffix)
			}
		}
	}()
	if err := copyPages(ctx, path, partial, backupStepBytes); err != nil {
		return fmt.Errorf("backup: copy %s: %w", path, err)
	}
	if err := syncFile(partial); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if err := os.Rename(partial, to); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	done = true
	return syncDir(filepath.Dir(to))
}

// pageCopier is the online backup of modernc.org/sqlite's connections.
type pageCopier interface {
	NewBackup(dstURI string) (*sqlite.Backup, error)
}

// backupStepBytes is how much one backup step copies before the copy is
// synced and the backup rests; backupRest is the rest, as a fraction of
// the step's time.
const (
	backupStepBytes = 64 << 20
	backupRest      = 4 // rest a quarter of the step's time
)

// copyPages copies every page of the database at path into the empty file
// dst with SQLite's online backup API. All steps read one snapshot: the
// source connection holds a read transaction from the first step to the
// last (in WAL mode it never blocks the writer), so the copy is the
// database as it was at that moment, and no write of the service between
// two steps restarts the backup, as it would if each step opened its own
// read transaction. The steps are 64 MB each, the copy is synced after
// each, and the backup rests a quarter of a step's time between steps (the
// tests take smaller steps, to have many on a small database): a
// copy of gigabytes then never leaves the disk a long queue of dirty pages
// to write, which the service's own commits (fsync of the WAL) would wait
// behind. The destination is written without a journal: until the rename
// it is nobody's database.
func copyPages(ctx context.Context, path, dst string, stepBytes int64) error {
	db := openCachedSQLite("file:" + escapePath(path) + "?_pragma=busy_timeout(10000)")
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN`); err != nil {
		return err
	}
	defer func() { _, _ = conn.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`) }()
	var pageSize int64
	// The first read starts the snapshot the steps copy.
	if err := conn.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&pageSize); err != nil {
		return err
	}
	var tables int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&tables); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer out.Close()
	return conn.Raw(func(dc any) error {
		cc, ok := dc.(*cachingConn)
		if !ok {
			return fmt.Errorf("unexpected connection type %T", dc)
		}
		src, ok := cc.inner.(pageCopier)
		if !ok {
			return fmt.Errorf("the sqlite driver's connection (%T) has no online backup", cc.inner)
		}
		b, err := src.NewBackup("file:" + escapePath(dst) + "?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)")
		if err != nil {
			return err
		}
		pages := int32(max(1, stepBytes/max(pageSize, 512)))
		for {
			began := time.Now()
			more, err := b.Step(pages)
			if err == nil {
				err = out.Sync()
			}
			if err == nil && more {
				err = rest(ctx, time.Since(began)/backupRest)
			}
			if err != nil || !more {
				if ferr := b.Finish(); err == nil {
					err = ferr
				}
				return err
			}
		}
	})
}

// rest waits d, or until ctx ends.
func rest(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Restore is a restore of a SQLite database in progress: the copy is in
// place under a temporary name (Copy) for the caller to check and migrate,
// and Finish puts it where the database goes.
type Restore struct {
	// Copy is the restored file, not yet in place.
	Copy    string
	path    string
	release func()
}

// BeginRestore refuses while a process serves the database at path (the
// service must be stopped: D79), then copies from next to it.
func BeginRestore(from, path string) (*Restore, error) {
	if _, err := os.Stat(from); err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	release, _, err := lockFile(path + ".lock")
	if errors.Is(err, ErrServedElsewhere) {
		return nil, fmt.Errorf("restore: a carteiro process is serving %s; stop the service first", path)
	}
	if err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	r := &Restore{Copy: path + ".restoring", path: path, release: release}
	for _, stale := range []string{r.Copy, r.Copy + "-wal", r.Copy + "-shm"} {
		if err := os.Remove(stale); err != nil && !errors.Is(err, os.ErrNotExist) {
			r.Abort()
			return nil, fmt.Errorf("restore: %w", err)
		}
	}
	if err := copyFile(from, r.Copy); err != nil {
		r.Abort()
		return nil, fmt.Errorf("restore: %w", err)
	}
	return r, nil
}

// Abort removes the copy and releases the database.
func (r *Restore) Abort() {
	for _, f := range []string{r.Copy, r.Copy + "-wal", r.Copy + "-shm"} {
		_ = os.Remove(f)
	}
	r.release()
}

// Finish moves the current database, with its WAL, aside under a name
// saying when (nothing is deleted), and puts the copy in its place. The
// copy's store must be closed.
func (r *Restore) Finish() (aside string, err error) {
	defer r.release()
	if _, err := os.Stat(r.Copy + "-wal"); err == nil {
		return "", fmt.Errorf("restore: %s-wal remains; close the copy's store first", r.Copy)
	}
	if _, err := os.Stat(r.path); err == nil {
		aside = r.path + ".before-restore-" + time.Now().UTC().Format("20060102T150405Z")
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if err := os.Rename(r.path+suffix, aside+suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
				return "", fmt.Errorf("restore: move %s aside: %w", r.path+suffix, err)
			}
		}
	}
	if err := os.Rename(r.Copy, r.path); err != nil {
		return aside, fmt.Errorf("restore: %w", err)
	}
	return aside, syncDir(filepath.Dir(r.path))
}

// IntegrityCheck runs SQLite's PRAGMA integrity_check and returns its
// findings, nil when the database is sound.
func (s *Store) IntegrityCheck(ctx context.Context) error {
	if s.dialect != SQLite {
		return errors.New("store: integrity_check is SQLite's")
	}
	rs, err := s.query(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return fmt.Errorf("store: integrity_check: %w", err)
	}
	defer rs.Close()
	var found []string
	for rs.Next() {
		var line string
		if err := rs.Scan(&line); err != nil {
			return fmt.Errorf("store: integrity_check: %w", err)
		}
		if line != "ok" {
			found = append(found, line)
		}
	}
	if err := rs.Err(); err != nil {
		return fmt.Errorf("store: integrity_check: %w", err)
	}
	if len(found) > 0 {
		return fmt.Errorf("store: integrity_check: %s", strings.Join(found, "; "))
	}
	return nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	_ = d.Sync() // not every file system syncs directories
	return nil
}
