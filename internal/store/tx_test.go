package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

var errAbort = errors.New("abort the transaction")

// writeEverything stores one row of each kind in tx and returns the org.
func writeEverything(t *testing.T, ctx context.Context, tx *store.Tx) *carteiro.Organization {
	t.Helper()
	o := &carteiro.Organization{ID: uuid.NewString(), Name: "in tx", CreatedAt: baseTime}
	if err := tx.CreateOrganization(ctx, o); err != nil {
		t.Fatalf("create organization in tx: %v", err)
	}
	if err := tx.CreateDomain(ctx, newDomain(o.ID, "tx.example", baseTime)); err != nil {
		t.Fatalf("create domain in tx: %v", err)
	}
	if err := tx.CreateAPIKey(ctx, newKey(o.ID, "tx key", baseTime)); err != nil {
		t.Fatalf("create key in tx: %v", err)
	}
	if _, err := tx.SettingOrInit(ctx, "tx_setting", "v"); err != nil {
		t.Fatalf("setting in tx: %v", err)
	}
	// The transaction reads its own writes.
	if _, err := tx.Organization(ctx, o.ID); err != nil {
		t.Fatalf("organization not visible inside its transaction: %v", err)
	}
	return o
}

// checkNothingWritten fails if any row of writeEverything survived.
func checkNothingWritten(t *testing.T, st *store.Store, o *carteiro.Organization) {
	t.Helper()
	ctx := testContext(t)
	if _, err := st.Organization(ctx, o.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("organization after rollback: err = %v, want ErrNotFound", err)
	}
	if n, err := st.CountOrganizations(ctx); err != nil || n != 0 {
		t.Errorf("CountOrganizations after rollback = %d, %v; want 0", n, err)
	}
	if ds, err := st.ListDomains(ctx, o.ID); err != nil || len(ds) != 0 {
		t.Errorf("domains after rollback = %v, %v; want none", domainNames(ds), err)
	}
	if ks, err := st.ListAPIKeys(ctx, o.ID); err != nil || len(ks) != 0 {
		t.Errorf("keys after rollback = %d, %v; want none", len(ks), err)
	}
	if _, err := st.Setting(ctx, "tx_setting"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("setting after rollback: err = %v, want ErrNotFound", err)
	}
}

func TestInTxErrorRollsBackEveryWrite(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		var o *carteiro.Organization
		err := st.InTx(ctx, func(tx *store.Tx) error {
			o = writeEverything(t, ctx, tx)
			return errAbort
		})
		if !errors.Is(err, errAbort) {
			t.Fatalf("InTx = %v, want fn's error", err)
		}
		checkNothingWritten(t, st, o)
	})
}

// A failed statement inside the transaction (here a conflict) that fn
// passes on undoes the writes before it.
func TestInTxStatementErrorRollsBack(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		var o *carteiro.Organization
		err := st.InTx(ctx, func(tx *store.Tx) error {
			o = writeEverything(t, ctx, tx)
			return tx.CreateDomain(ctx, newDomain(o.ID, "tx.example", baseTime))
		})
		if !errors.Is(err, store.ErrConflict) {
			t.Fatalf("InTx = %v, want the ErrConflict fn returned", err)
		}
		checkNothingWritten(t, st, o)
	})
}

func TestInTxCommitIsVisible(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		url := testserver.DatabaseURL(t, b)
		st := openURL(t, url)
		if _, err := st.Migrate(testContext(t)); err != nil {
			t.Fatalf("migrate: %v", err)
		}
		ctx := testContext(t)
		var o *carteiro.Organization
		err := st.InTx(ctx, func(tx *store.Tx) error {
			o = writeEverything(t, ctx, tx)
			// Not visible outside the transaction before commit (read side).
			if _, err := st.Organization(ctx, o.ID); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("uncommitted organization seen outside its transaction: err = %v", err)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("InTx: %v", err)
		}

		// Visible to this handle and to another one, as another process.
		for i, h := range []*store.Store{st, openURL(t, url)} {
			if _, err := h.Organization(ctx, o.ID); err != nil {
				t.Errorf("handle %d: committed organization: %v", i, err)
			}
			if ds, err := h.ListDomains(ctx, o.ID); err != nil || len(ds) != 1 {
				t.Errorf("handle %d: committed domains = %v, %v; want one", i, domainNames(ds), err)
			}
			if ks, err := h.ListAPIKeys(ctx, o.ID); err != nil || len(ks) != 1 {
				t.Errorf("handle %d: committed keys = %d, %v; want one", i, len(ks), err)
			}
			if v, err := h.Setting(ctx, "tx_setting"); err != nil || v != "v" {
				t.Errorf("handle %d: committed setting = %q, %v", i, v, err)
			}
		}
	})
}

// A panic inside fn (recovered higher up, as the HTTP middleware does) must
// roll back and leave the store able to take writes: on SQLite a transaction
// left open would hold the single write connection for ever.
func TestInTxPanicRollsBackAndReleases(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		var o *carteiro.Organization
		func() {
			defer func() {
				if v := recover(); v != errAbort {
					t.Errorf("recovered %v, want InTx to pass the panic on", v)
				}
			}()
			_ = st.InTx(ctx, func(tx *store.Tx) error {
				o = writeEverything(t, ctx, tx)
				panic(errAbort)
			})
		}()

		short, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		if err := st.CreateOrganization(short, &carteiro.Organization{ID: uuid.NewString(), Name: "after", CreatedAt: baseTime}); err != nil {
			t.Fatalf("write after a panicking transaction: %v (the transaction was left open)", err)
		}
		if _, err := st.Organization(ctx, o.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("organization written before the panic: err = %v, want ErrNotFound", err)
		}
	})
}
