package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestCopyPagesIsOneSnapshotWhileAnotherConnectionWrites (D79): a writer
// on its own connection commits a row into two tables in each transaction
// while the backup copies the database in many small steps (4 KB pages, 64
// KB a step). The copy passes integrity_check, both tables hold the same
// rows (no step saw a later state than another), and it holds every row
// committed before the copy began. Without the read transaction held
// across the steps the copy restarts at each commit and never ends.
func TestCopyPagesIsOneSnapshotWhileAnotherConnectionWrites(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "live.db")
	live := openCachedSQLite("file:" + escapePath(path) + "?" + sqlitePragmas)
	defer live.Close()
	live.SetMaxOpenConns(1)
	ctx := context.Background()
	for _, q := range []string{`CREATE TABLE parent (id INTEGER PRIMARY KEY, body BLOB)`, `CREATE TABLE child (parent_id INTEGER NOT NULL, body BLOB)`} {
		if _, err := live.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	var committed atomic.Int64
	write := func(n int) error {
		tx, err := live.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		body := make([]byte, 2000) // two rows a page: many pages change
		if _, err := tx.ExecContext(ctx, `INSERT INTO parent (id, body) VALUES (?, ?)`, n, body); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO child (parent_id, body) VALUES (?, ?)`, n, body); err != nil {
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		committed.Store(int64(n))
		return nil
	}
	n := 0
	for ; n < 3000; n++ { // about 12 MB: some 200 steps
		if err := write(n); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var writeErr error
	wg.Go(func() {
		for i := n; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if writeErr = write(i); writeErr != nil {
				return
			}
		}
	})
	before := committed.Load()
	copyPath := filepath.Join(dir, "copy.db")
	if err := createPrivateFile(copyPath); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	// Were each step its own read transaction, every commit of the writer
	// would restart the copy, which would then never end.
	copyCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	err := copyPages(copyCtx, path, copyPath, 64<<10)
	took := time.Since(began)
	close(stop)
	wg.Wait()
	if err != nil || writeErr != nil {
		t.Fatalf("copy: %v; writer: %v", err, writeErr)
	}
	if committed.Load() <= before {
		t.Fatalf("the writer committed nothing while the copy ran (%s): the test proves nothing", took)
	}

	cp, err := sql.Open("sqlite", "file:"+escapePath(copyPath))
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	var check string
	if err := cp.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q %v", check, err)
	}
	var parents, children, maxID int64
	if err := cp.QueryRow(`SELECT (SELECT count(*) FROM parent), (SELECT count(*) FROM child), (SELECT max(id) FROM parent)`).Scan(&parents, &children, &maxID); err != nil {
		t.Fatal(err)
	}
	if parents != children || parents != maxID+1 {
		t.Fatalf("torn copy: %d parents (max id %d), %d children", parents, maxID, children)
	}
	if maxID < before {
		t.Fatalf("the copy ends at row %d, but row %d was committed before it began", maxID, before)
	}
	t.Logf("copied %d rows in %s while the writer went from %d to %d", parents, took, before, committed.Load())
}
