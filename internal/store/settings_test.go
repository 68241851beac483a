package store_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

func TestSettingOrInitKeepsFirstValue(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)

		if _, err := st.Setting(ctx, "instance_id"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unset setting: err = %v, want ErrNotFound", err)
		}
		v, err := st.SettingOrInit(ctx, "instance_id", "first")
		if err != nil || v != "first" {
			t.Fatalf("init = %q, %v; want first", v, err)
		}
		v, err = st.SettingOrInit(ctx, "instance_id", "second")
		if err != nil || v != "first" {
			t.Errorf("init again = %q, %v; want the first value", v, err)
		}
		if v, err := st.Setting(ctx, "instance_id"); err != nil || v != "first" {
			t.Errorf("Setting = %q, %v; want first", v, err)
		}
		if v, err := st.SettingOrInit(ctx, "other", "x"); err != nil || v != "x" {
			t.Errorf("another key = %q, %v; want x", v, err)
		}
	})
}

// Several processes starting at once on a new database must agree on one
// value (a generated secret, say): two handles stand for two processes.
func TestSettingOrInitConcurrent(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		url := testserver.DatabaseURL(t, b)
		first := openURL(t, url)
		if _, err := first.Migrate(testContext(t)); err != nil {
			t.Fatalf("migrate: %v", err)
		}
		handles := []*store.Store{first, openURL(t, url)}
		ctx := testContext(t)

		const callers = 16
		got := make([]string, callers)
		errs := make([]error, callers)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range callers {
			wg.Go(func() {
				<-start
				got[i], errs[i] = handles[i%len(handles)].SettingOrInit(ctx, "secret", fmt.Sprintf("value-%d", i))
			})
		}
		close(start)
		wg.Wait()

		for i, err := range errs {
			if err != nil {
				t.Fatalf("caller %d: %v", i, err)
			}
		}
		for i, v := range got {
			if v != got[0] {
				t.Errorf("caller %d got %q, caller 0 got %q: callers disagree", i, v, got[0])
			}
		}
		for _, st := range handles {
			if v, err := st.Setting(ctx, "secret"); err != nil || v != got[0] {
				t.Errorf("stored value = %q, %v; want %q", v, err, got[0])
			}
		}
	})
}
