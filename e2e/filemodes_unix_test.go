//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/carteiro/carteiro/internal/testserver"
)

// D64: the SQLite database, its -wal and -shm files and the serving lock
// are mode 0600, and a folder Carteiro creates for them 0700, under the
// usual umask 022 that would otherwise leave them readable by everyone.
// SQLite only: PostgreSQL keeps no files of Carteiro's. Not parallel, since
// the umask belongs to the whole process.
func TestSQLiteFilesArePrivateD64(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "data", "carteiro")
	db := filepath.Join(dir, "carteiro.db")
	ts := testserver.StartServer(t, testserver.SQLite, map[string]string{"CARTEIRO_DATABASE_URL": "sqlite:" + db})
	send(t, ts, ts.TestKey, map[string]any{"from": "a@x.example", "to": "b@y.example", "subject": "s", "text": "t"})

	for _, name := range []string{db, db + "-wal", db + "-shm", db + ".lock"} {
		st, err := os.Stat(name)
		testserver.Must(t, err == nil, "stat %s: %v", name, err)
		testserver.Must(t, st.Mode().Perm() == 0o600, "%s has mode %v, want 0600", filepath.Base(name), st.Mode().Perm())
	}
	for _, name := range []string{dir, filepath.Dir(dir)} {
		st, err := os.Stat(name)
		testserver.Must(t, err == nil, "stat %s: %v", name, err)
		testserver.Must(t, st.Mode().Perm() == 0o700, "folder %s has mode %v, want 0700", name, st.Mode().Perm())
	}
}
