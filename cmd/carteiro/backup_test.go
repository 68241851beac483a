package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// D79: PostgreSQL is backed up with its own tools; the command says which.
func TestBackupRefusesPostgresAndNamesItsTools(t *testing.T) {
	for _, args := range [][]string{{"backup", "--to", filepath.Join(t.TempDir(), "x.db")}, {"restore", "--from", "x.db"}} {
		code, _, errOut := cli(t, "postgres://carteiro@127.0.0.1:1/none", "", args...)
		if code != 1 || !strings.Contains(errOut, "pg_dump") || !strings.Contains(errOut, "WAL archiving") {
			t.Errorf("%s on PostgreSQL: %d %q", args[0], code, errOut)
		}
	}
}

// D79: a restore checks the copy before touching the database.
func TestRestoreRefusesADamagedCopy(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.db")
	if err := writeFile(bad, "this is not a database, only text long enough to look like one"); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := cli(t, "sqlite:"+filepath.Join(dir, "carteiro.db"), "", "restore", "--from", bad)
	if code != 1 || !strings.Contains(errOut, "nothing changed") {
		t.Fatalf("restore of a damaged copy: %d %q", code, errOut)
	}
	if code, _, errOut := cli(t, "sqlite:"+filepath.Join(dir, "x.db"), "", "backup"); code != 2 {
		t.Fatalf("backup without --to: %d %q", code, errOut)
	}
}

func writeFile(path, content string) error { return os.WriteFile(path, []byte(content), 0o600) }
