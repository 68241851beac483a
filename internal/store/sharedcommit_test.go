package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

// TestSharedTransactionsIsolateFailures: concurrent callers of InShared
// share commits on both stores, but one caller's error or panic undoes
// only its own writes; the same for InSharedOnSQLite (shared on SQLite, a
// transaction of its own on PostgreSQL). Callers of both run at once.
func TestSharedTransactionsIsolateFailures(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		boom := errors.New("boom")
		var wg sync.WaitGroup
		errs := make([]error, 60)
		for i := range errs {
			wg.Add(1)
			share := st.InShared
			if (i/20)%2 == 1 { // callers 20 to 39, failures 27 and 33 among them
				share = st.InSharedOnSQLite
			}
			go func() {
				defer wg.Done()
				errs[i] = share(ctx, func(tx *store.Tx) error {
					if _, err := tx.SettingOrInit(ctx, fmt.Sprintf("k%d", i), "v"); err != nil {
						return err
					}
					switch i % 20 {
					case 7:
						return boom
					case 13:
						panic("worker bug")
					}
					return nil
				})
			}()
		}
		wg.Wait()
		for i, err := range errs {
			_, getErr := st.Setting(ctx, fmt.Sprintf("k%d", i))
			switch i % 20 {
			case 7:
				if !errors.Is(err, boom) || !errors.Is(getErr, store.ErrNotFound) {
					t.Errorf("caller %d: err %v, setting %v; want its own error and no write", i, err, getErr)
				}
			case 13:
				if err == nil || !errors.Is(getErr, store.ErrNotFound) {
					t.Errorf("caller %d: a panic must fail only itself: err %v, setting %v", i, err, getErr)
				}
			default:
				if err != nil || getErr != nil {
					t.Errorf("caller %d: err %v, setting %v; want committed", i, err, getErr)
				}
			}
		}
	})
}

// settingsFlusher writes, just before the commit, one setting per key its
// callers added.
type settingsFlusher struct {
	keys    []string
	flushes *atomic.Int64
	fail    error
}

func (f *settingsFlusher) Flush(ctx context.Context, tx *store.Tx) error {
	f.flushes.Add(1)
	if f.fail != nil {
		return f.fail
	}
	for _, k := range f.keys {
		if _, err := tx.SettingOrInit(ctx, k, "v"); err != nil {
			return err
		}
	}
	return nil
}

type flusherKey struct{}

// TestSharedWritesCommitWithTheirCallers: what concurrent callers add to a
// Flusher (shared writes) is written once per transaction, before the commit, and
// is answered as committed; a caller that fails before adding leaves no
// trace, and a failing flush fails every caller of its transaction.
func TestSharedWritesCommitWithTheirCallers(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		boom := errors.New("boom")
		var flushes atomic.Int64 // shared by every transaction
		var wg sync.WaitGroup
		errs := make([]error, 80)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = st.InShared(ctx, func(tx *store.Tx) error {
					if i%10 == 3 {
						return boom
					}
					f := tx.SharedWrites(flusherKey{}, func() store.Flusher { return &settingsFlusher{flushes: &flushes} }).(*settingsFlusher)
					f.keys = append(f.keys, fmt.Sprintf("j%d", i))
					return nil
				})
			}()
		}
		wg.Wait()
		for i, err := range errs {
			_, getErr := st.Setting(ctx, fmt.Sprintf("j%d", i))
			if i%10 == 3 {
				if !errors.Is(err, boom) || !errors.Is(getErr, store.ErrNotFound) {
					t.Errorf("caller %d: err %v, setting %v; want its own error and no write", i, err, getErr)
				}
				continue
			}
			if err != nil || getErr != nil {
				t.Errorf("caller %d: err %v, setting %v; want committed", i, err, getErr)
			}
		}
		if n := flushes.Load(); n < 1 || n > int64(len(errs)) {
			t.Errorf("%d flushes for %d callers", n, len(errs))
		}
		t.Logf("%s: %d callers, %d flushes", b, len(errs), flushes.Load())

		// A failing flush: the caller's own write (made before it) is undone.
		err := st.InShared(ctx, func(tx *store.Tx) error {
			if _, err := tx.SettingOrInit(ctx, "before-flush", "v"); err != nil {
				return err
			}
			tx.SharedWrites(flusherKey{}, func() store.Flusher { return &settingsFlusher{flushes: new(atomic.Int64), fail: boom} })
			return nil
		})
		_, getErr := st.Setting(ctx, "before-flush")
		if !errors.Is(err, boom) || !errors.Is(getErr, store.ErrNotFound) {
			t.Errorf("failing flush: err %v, setting %v; want the flush's error and nothing committed", err, getErr)
		}
	})
}
