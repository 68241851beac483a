package store_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

// TestInGroupTxIsolatesFailures: concurrent callers may share a commit, but
// one caller's error or panic undoes only its own writes.
func TestInGroupTxIsolatesFailures(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		boom := errors.New("boom")
		var wg sync.WaitGroup
		errs := make([]error, 60)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = st.InGroupTx(ctx, func(tx *store.Tx) error {
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
