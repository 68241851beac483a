package store_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

func TestPingAndDialect(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openURL(t, testserver.DatabaseURL(t, b))
		if got := st.Dialect(); string(got) != string(b) {
			t.Errorf("Dialect() = %q, want %q", got, b)
		}
		if err := st.Ping(testContext(t)); err != nil {
			t.Fatalf("Ping: %v", err)
		}
		// Only the driver handle of the store's own dialect is set.
		if b == testserver.Postgres && (st.Pool() == nil || st.SQLiteWriteDB() != nil) {
			t.Errorf("PostgreSQL store: Pool() = %v, SQLiteWriteDB() = %v", st.Pool(), st.SQLiteWriteDB())
		}
		if b == testserver.SQLite && (st.Pool() != nil || st.SQLiteWriteDB() == nil) {
			t.Errorf("SQLite store: Pool() = %v, SQLiteWriteDB() = %v", st.Pool(), st.SQLiteWriteDB())
		}
	})
}

func TestPingFailsAfterClose(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st, err := store.Open(testContext(t), testserver.DatabaseURL(t, b))
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		if err := st.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
		if err := st.Ping(testContext(t)); err == nil {
			t.Error("Ping on a closed store succeeded; /readyz would lie")
		}
	})
}

func TestOpenRejectsUnsupportedURL(t *testing.T) {
	t.Parallel()
	for _, url := range []string{
		"mysql://carteiro:hunter2@127.0.0.1:3306/carteiro",
		"carteiro.db",
		"",
		"SQLITE:carteiro.db",
	} {
		st, err := store.Open(context.Background(), url)
		if err == nil {
			st.Close()
			t.Errorf("Open(%q) succeeded, want an error", url)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, "unsupported database URL") || !strings.Contains(msg, "sqlite:") || !strings.Contains(msg, "postgres://") {
			t.Errorf("Open(%q) error %q does not say what is supported", url, msg)
		}
		if strings.Contains(msg, "hunter2") {
			t.Errorf("Open(%q) error %q leaks the password", url, msg)
		}
	}
}

func TestOpenEmptySQLitePathFails(t *testing.T) {
	t.Parallel()
	st, err := store.Open(context.Background(), "sqlite:")
	if err == nil {
		st.Close()
		t.Fatal(`Open("sqlite:") succeeded, want an error`)
	}
}

// D11: a database that cannot be reached is ErrUnavailable (503), not a
// generic failure.
func TestOpenUnreachableIsUnavailable(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		// A folder cannot be made under a regular file (D64 makes missing
		// folders, so a merely missing one would be created).
		file := t.TempDir() + "/a-file"
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		url := "sqlite:" + file + "/dir/carteiro.db"
		if b == testserver.Postgres {
			// Port 1 on loopback: nothing listens, the connection is refused.
			url = "postgres://carteiro:hunter2@127.0.0.1:1/carteiro?sslmode=disable&connect_timeout=2"
		}
		st, err := store.Open(testContext(t), url)
		if err == nil {
			st.Close()
			t.Fatalf("Open(%q) succeeded, want an error", url)
		}
		if !errors.Is(err, store.ErrUnavailable) {
			t.Errorf("Open(%q) = %v, want errors.Is ErrUnavailable", url, err)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("error %q leaks the password", err)
		}
	})
}

// Timestamps are microseconds in both stores: nanoseconds are dropped, the
// zone becomes UTC, and dates before 1970 and far ahead survive.
func TestTimestampsKeepMicrosecondsInUTC(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		for _, when := range []time.Time{
			baseTime,
			time.Date(1969, 12, 31, 23, 59, 59, 999999999, time.UTC),
			time.Date(2262, 1, 1, 0, 0, 0, 1000, time.FixedZone("JST", 9*3600)),
			time.Unix(0, 0),
		} {
			o := &carteiro.Organization{ID: when.Format(time.RFC3339Nano), Name: "org", CreatedAt: when}
			if err := st.CreateOrganization(ctx, o); err != nil {
				t.Fatalf("create organization at %s: %v", when, err)
			}
			got, err := st.Organization(ctx, o.ID)
			if err != nil {
				t.Fatalf("read organization: %v", err)
			}
			sameTime(t, "CreatedAt of "+o.ID, got.CreatedAt, when)
			if got.CreatedAt.Nanosecond()%1000 != 0 {
				t.Errorf("CreatedAt %s keeps sub-microsecond digits", got.CreatedAt.Format(time.RFC3339Nano))
			}
		}
	})
}
