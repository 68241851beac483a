package store_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

// testTimeout bounds every database call of a test, so a stuck lock fails
// the test instead of hanging the package.
const testTimeout = 20 * time.Second

// testContext is a context that ends with the test.
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// baseTime has a nanosecond part and a non-UTC zone on purpose: the store
// must keep microseconds and hand back UTC.
var baseTime = time.Date(2031, 5, 17, 10, 20, 30, 123456789, time.FixedZone("BRT", -3*3600))

// stored is what a time becomes after a round trip: microseconds, UTC.
func stored(t time.Time) time.Time { return t.Truncate(time.Microsecond).UTC() }

// openURL opens a store on url and closes it when the test ends.
func openURL(t *testing.T, url string) *store.Store {
	t.Helper()
	st, err := store.Open(testContext(t), url)
	if err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return st
}

// openStore opens a fresh, migrated store of backend b.
func openStore(t *testing.T, b testserver.Backend) *store.Store {
	t.Helper()
	st := openURL(t, testserver.DatabaseURL(t, b))
	if _, err := st.Migrate(testContext(t)); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return st
}

// createOrg inserts an organization created at baseTime.
func createOrg(t *testing.T, st *store.Store, name string) *carteiro.Organization {
	t.Helper()
	o := &carteiro.Organization{ID: uuid.NewString(), Name: name, CreatedAt: baseTime}
	if err := st.CreateOrganization(testContext(t), o); err != nil {
		t.Fatalf("create organization %s: %v", name, err)
	}
	return o
}

// createAudience stores an empty audience of org.
func createAudience(t *testing.T, st *store.Store, org *carteiro.Organization, name string) *carteiro.Audience {
	t.Helper()
	aud := &carteiro.Audience{ID: uuid.NewString(), OrgID: org.ID, Name: name, Active: true, CreatedAt: baseTime, UpdatedAt: baseTime}
	if err := st.CreateAudience(testContext(t), aud); err != nil {
		t.Fatalf("create audience %s: %v", name, err)
	}
	return aud
}

// newDomain builds (without storing) a pending domain of orgID.
func newDomain(orgID, name string, created time.Time) *carteiro.Domain {
	return &carteiro.Domain{
		ID:             uuid.NewString(),
		OrgID:          orgID,
		Name:           name,
		Status:         carteiro.DomainPending,
		DKIMSelector:   "carteiro1",
		DKIMPublicKey:  "MIIBIjANBgkq-public-" + name,
		DKIMPrivateKey: "sealed-private-" + name,
		OwnershipToken: "token-" + name,
		CreatedAt:      created,
	}
}

// createDomain stores a domain built by newDomain.
func createDomain(t *testing.T, st *store.Store, orgID, name string, created time.Time) *carteiro.Domain {
	t.Helper()
	d := newDomain(orgID, name, created)
	if err := st.CreateDomain(testContext(t), d); err != nil {
		t.Fatalf("create domain %s: %v", name, err)
	}
	return d
}

// newKey builds (without storing) an API key of orgID.
func newKey(orgID, name string, created time.Time) *carteiro.APIKey {
	secret := carteiro.NewSecretKey(carteiro.ModeLive)
	return &carteiro.APIKey{
		ID:         uuid.NewString(),
		OrgID:      orgID,
		Name:       name,
		Mode:       carteiro.ModeLive,
		Permission: carteiro.PermissionFull,
		Hash:       carteiro.HashKey(secret),
		Prefix:     secret[:12],
		CreatedAt:  created,
	}
}

// rawQuery runs query on the store's own driver, around the package's
// queries, and hands each row to scan. Placeholders are written as ?.
func rawQuery(t *testing.T, st *store.Store, query string, args []any, scan func(scan func(dest ...any) error) error) {
	t.Helper()
	ctx := testContext(t)
	if st.Dialect() == store.Postgres {
		rs, err := st.Pool().Query(ctx, dollarPlaceholders(query), args...)
		if err != nil {
			t.Fatalf("raw query %q: %v", query, err)
		}
		defer rs.Close()
		for rs.Next() {
			if err := scan(rs.Scan); err != nil {
				t.Fatalf("raw query %q: scan: %v", query, err)
			}
		}
		if err := rs.Err(); err != nil {
			t.Fatalf("raw query %q: %v", query, err)
		}
		return
	}
	rs, err := st.SQLiteWriteDB().QueryContext(ctx, query, args...)
	if err != nil {
		t.Fatalf("raw query %q: %v", query, err)
	}
	defer rs.Close()
	for rs.Next() {
		if err := scan(rs.Scan); err != nil {
			t.Fatalf("raw query %q: scan: %v", query, err)
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatalf("raw query %q: %v", query, err)
	}
}

// rawExec runs a statement on the store's own driver.
func rawExec(t *testing.T, st *store.Store, query string, args ...any) {
	t.Helper()
	ctx := testContext(t)
	var err error
	if st.Dialect() == store.Postgres {
		_, err = st.Pool().Exec(ctx, dollarPlaceholders(query), args...)
	} else {
		_, err = st.SQLiteWriteDB().ExecContext(ctx, query, args...)
	}
	if err != nil {
		t.Fatalf("raw exec %q: %v", query, err)
	}
}

// dollarPlaceholders rewrites ? as $1, $2, ... for PostgreSQL.
func dollarPlaceholders(query string) string {
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// sameTime fails unless got is want at microsecond precision, in UTC.
func sameTime(t *testing.T, what string, got, want time.Time) {
	t.Helper()
	if !got.Equal(stored(want)) {
		t.Errorf("%s = %s, want %s", what, got.Format(time.RFC3339Nano), stored(want).Format(time.RFC3339Nano))
	}
	if got.Location() != time.UTC {
		t.Errorf("%s is in zone %s, want UTC", what, got.Location())
	}
}

// sameTimePtr is sameTime for optional times; want nil means got must be nil.
func sameTimePtr(t *testing.T, what string, got, want *time.Time) {
	t.Helper()
	switch {
	case want == nil && got != nil:
		t.Errorf("%s = %s, want nil", what, got.Format(time.RFC3339Nano))
	case want != nil && got == nil:
		t.Errorf("%s = nil, want %s", what, stored(*want).Format(time.RFC3339Nano))
	case want != nil:
		sameTime(t, what, *got, *want)
	}
}

func ptr[T any](v T) *T { return &v }

// openTx runs fn in a transaction of st and keeps that transaction open
// until the returned commit is called, which commits it and returns its
// error. The test fails if fn does.
func openTx(t *testing.T, st *store.Store, fn func(tx *store.Tx) error) (commit func() error) {
	t.Helper()
	held, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		done <- st.InTx(testContext(t), func(tx *store.Tx) error {
			if err := fn(tx); err != nil {
				return err
			}
			close(held)
			<-release
			return nil
		})
	}()
	select {
	case <-held:
	case err := <-done:
		t.Fatalf("transaction held open: %v", err)
	}
	return func() error {
		close(release)
		return <-done
	}
}
