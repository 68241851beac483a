package store_test

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

// migrationNames lists migrations/*.sql that database d applies, in version
// order, read from the source tree rather than from the package, so a file
// the embed misses shows. A file named NNNN_x.sqlite.sql or
// NNNN_x.postgres.sql is for that database only.
func migrationNames(t *testing.T, d store.Dialect) []string {
	t.Helper()
	entries, err := os.ReadDir("migrations")
	if err != nil {
		t.Fatalf("read migrations: %v", err)
	}
	var names []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".sql") {
			continue
		}
		if other := otherDialect(d); strings.HasSuffix(name, "."+string(other)+".sql") {
			continue
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		t.Fatal("no migrations found")
	}
	slices.SortFunc(names, func(a, b string) int { return versionOf(t, a) - versionOf(t, b) })
	return names
}

func otherDialect(d store.Dialect) store.Dialect {
	if d == store.Postgres {
		return store.SQLite
	}
	return store.Postgres
}

func versionOf(t *testing.T, name string) int {
	t.Helper()
	num, _, _ := strings.Cut(name, "_")
	v, err := strconv.Atoi(num)
	if err != nil {
		t.Fatalf("migration %s: %v", name, err)
	}
	return v
}

// appliedVersions reads schema_migrations: version -> number of rows.
func appliedVersions(t *testing.T, st *store.Store) map[int]int {
	t.Helper()
	out := map[int]int{}
	rawQuery(t, st, `SELECT version, COUNT(*) FROM schema_migrations GROUP BY version`, nil, func(scan func(...any) error) error {
		var v int64
		var n int
		if err := scan(&v, &n); err != nil {
			return err
		}
		out[int(v)] = n
		return nil
	})
	return out
}

// checkEachVersionOnce fails unless schema_migrations holds every migration
// exactly once and nothing else.
func checkEachVersionOnce(t *testing.T, st *store.Store, names []string) {
	t.Helper()
	got := appliedVersions(t, st)
	want := map[int]int{}
	for _, n := range names {
		want[versionOf(t, n)] = 1
	}
	if len(got) != len(want) {
		t.Errorf("schema_migrations = %v, want %v", got, want)
	}
	for v, n := range want {
		if got[v] != n {
			t.Errorf("schema_migrations has version %d %d times, want %d", v, got[v], n)
		}
	}
}

func TestMigrateAppliesEachMigrationOnce(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openURL(t, testserver.DatabaseURL(t, b))
		ctx := testContext(t)
		names := migrationNames(t, st.Dialect())

		applied, err := st.Migrate(ctx)
		if err != nil {
			t.Fatalf("first migrate: %v", err)
		}
		if !slices.Equal(applied, names) {
			t.Errorf("first migrate applied %v, want %v in order", applied, names)
		}
		checkEachVersionOnce(t, st, names)

		again, err := st.Migrate(ctx)
		if err != nil {
			t.Fatalf("second migrate: %v", err)
		}
		if len(again) != 0 {
			t.Errorf("second migrate applied %v, want nothing", again)
		}
		checkEachVersionOnce(t, st, names)

		// The schema is really there: a query of the package works.
		if n, err := st.CountOrganizations(ctx); err != nil || n != 0 {
			t.Errorf("CountOrganizations after migrate = %d, %v; want 0, nil", n, err)
		}
	})
}

// Several processes may start at once on one database (D1's roles): every
// Migrate must succeed and each migration must run exactly once.
func TestMigrateConcurrentHandles(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		// A few fresh databases, since a race shows only sometimes.
		for round := range 3 {
			url := testserver.DatabaseURL(t, b)
			handles := []*store.Store{openURL(t, url), openURL(t, url)}
			names := migrationNames(t, handles[0].Dialect())
			ctx := testContext(t)

			applied := make([][]string, len(handles))
			errs := make([]error, len(handles))
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i, st := range handles {
				wg.Go(func() {
					<-start
					applied[i], errs[i] = st.Migrate(ctx)
				})
			}
			close(start)
			wg.Wait()

			var all []string
			for i, err := range errs {
				if err != nil {
					t.Errorf("round %d: concurrent migrate %d: %v", round, i, err)
				}
				all = append(all, applied[i]...)
			}
			slices.SortFunc(all, func(a, b string) int { return versionOf(t, a) - versionOf(t, b) })
			if !slices.Equal(all, names) {
				t.Errorf("round %d: handles applied %v between them, want each of %v exactly once", round, applied, names)
			}
			checkEachVersionOnce(t, handles[0], names)
		}
	})
}
