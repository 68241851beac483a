package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

// TestSharedTransactionKeepsCallersApart runs callers in one shared
// transaction, as the shared commit does under load: a statement that fails
// (on PostgreSQL it aborts the whole transaction unless the caller has its
// savepoint), an error, a panic, a cancelled context and a caller that only
// adds to a Flusher (shared writes). Each failure undoes only its own caller's
// writes, and the callers after it still commit.
func TestSharedTransactionKeepsCallersApart(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		existing := createOrg(t, st, "existing")
		boom := errors.New("boom")
		set := func(key string) func(tx *store.Tx) error {
			return func(tx *store.Tx) error {
				_, err := tx.SettingOrInit(ctx, key, "v")
				return err
			}
		}
		var flushes atomic.Int64
		callers := []struct {
			name   string
			fn     func(tx *store.Tx) error
			wantOK bool
			key    string // a setting the caller writes
		}{
			{"writes", set("a"), true, "a"},
			{"statement fails", func(tx *store.Tx) error {
				if err := set("b")(tx); err != nil {
					return err
				}
				dup := *existing
				return tx.CreateOrganization(ctx, &dup) // the same id again
			}, false, "b"},
			{"writes after a failed statement", set("c"), true, "c"},
			{"returns an error", func(tx *store.Tx) error {
				if err := set("d")(tx); err != nil {
					return err
				}
				return boom
			}, false, "d"},
			{"panics", func(tx *store.Tx) error {
				if err := set("e")(tx); err != nil {
					return err
				}
				panic("worker bug")
			}, false, "e"},
			{"its context is cancelled while it runs", func(tx *store.Tx) error {
				cctx, cancel := context.WithCancel(ctx)
				cancel()
				_, err := tx.SettingOrInit(cctx, "f", "v")
				return err
			}, true, "f"},
			{"only joins the flush", func(tx *store.Tx) error {
				fl := tx.SharedWrites(flusherKey{}, func() store.Flusher { return &settingsFlusher{flushes: &flushes} }).(*settingsFlusher)
				fl.keys = append(fl.keys, "g")
				return nil
			}, true, "g"},
			{"last", set("h"), true, "h"},
		}
		fns := make([]func(tx *store.Tx) error, len(callers))
		for i, c := range callers {
			fns[i] = c.fn
		}
		errs, alone := st.SharedRun(ctx, fns...)
		for i, c := range callers {
			_, getErr := st.Setting(ctx, c.key)
			switch {
			case alone[i]:
				t.Errorf("%s: ran again alone; want an answer from the shared transaction", c.name)
			case c.wantOK && (errs[i] != nil || getErr != nil):
				t.Errorf("%s: err %v, its write %v; want committed", c.name, errs[i], getErr)
			case !c.wantOK && (errs[i] == nil || !errors.Is(getErr, store.ErrNotFound)):
				t.Errorf("%s: err %v, its write %v; want its own error and no write", c.name, errs[i], getErr)
			}
		}
		if !errors.Is(errs[1], store.ErrConflict) || !errors.Is(errs[3], boom) {
			t.Errorf("errors: %v, %v; want the caller's own (conflict, boom)", errs[1], errs[3])
		}
		if n := flushes.Load(); n != 1 {
			t.Errorf("%d flushes; want 1 for the shared transaction", n)
		}
	})
}

// TestSharedTransactionDoesNotWaitOnLocks: on PostgreSQL a caller that
// waits on a lock held elsewhere (here a suppression's gate) would hold up
// every caller of its shared transaction. Its wait is cut short, the others
// commit at once, and it runs again alone, waiting as long as it must.
//
// PostgreSQL only: on SQLite, with one writer, no other transaction can
// hold a lock while a shared one runs.
func TestSharedTransactionDoesNotWaitOnLocks(t *testing.T) {
	t.Parallel()
	st := openStore(t, testserver.Postgres)
	ctx := testContext(t)
	org := createOrg(t, st, "gated")
	holding, release, held := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		held <- st.InTx(ctx, func(tx *store.Tx) error {
			if err := tx.HoldForSuppression(ctx, org.ID, "gated@example.com"); err != nil {
				return err
			}
			close(holding)
			<-release
			return nil
		})
	}()
	select {
	case <-holding:
	case err := <-held:
		t.Fatalf("holding the gate: %v", err)
	}
	// Release the gate only once the other callers' writes are
	// visible: were the shared transaction waiting on it, they would
	// not be, and the wait below gives up.
	othersVisible := make(chan bool, 1)
	go func() {
		defer close(release)
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			_, errBefore := st.Setting(ctx, "before-gate")
			_, errAfter := st.Setting(ctx, "after-gate")
			if errBefore == nil && errAfter == nil {
				othersVisible <- true
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		othersVisible <- false
	}()
	runs := 0
	errs, alone := st.SharedRun(ctx,
		func(tx *store.Tx) error { _, err := tx.SettingOrInit(ctx, "before-gate", "v"); return err },
		func(tx *store.Tx) error {
			runs++
			if err := tx.HoldForSuppression(ctx, org.ID, "gated@example.com"); err != nil {
				return fmt.Errorf("suppress: %w", err)
			}
			_, err := tx.SettingOrInit(ctx, "gated", "v")
			return err
		},
		func(tx *store.Tx) error { _, err := tx.SettingOrInit(ctx, "after-gate", "v"); return err },
	)
	if err := <-held; err != nil {
		t.Fatalf("holder: %v", err)
	}
	if !<-othersVisible {
		t.Errorf("the other callers' writes were not committed while one caller waited on the gate")
	}
	for i, err := range errs {
		if err != nil {
			t.Errorf("caller %d: %v", i, err)
		}
	}
	if !alone[1] || alone[0] || alone[2] || runs != 2 {
		t.Errorf("ran alone %v, gated caller ran %d times; want only the gated caller, run twice", alone, runs)
	}
	if _, err := st.Setting(ctx, "gated"); err != nil {
		t.Errorf("the gated caller's write: %v", err)
	}
}
