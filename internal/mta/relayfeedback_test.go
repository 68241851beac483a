package mta

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testutil"
)

// D80: the relay is one destination and gets the same feedback: a 421
// halves the connections used at once, which the relay then sees.
func TestRelaySlowsDownOn421(t *testing.T) {
	t.Parallel()
	srv := testutil.NewSMTPServer(t, testutil.StallAfter(testutil.StageData, 20*time.Millisecond))
	srv.SetThrottle(20, time.Minute)
	const size = 8
	relay := newPlainRelay(t, srv, RelayOptions{PoolSize: size})
	ctx := testContext(t)
	data := builtMessage(t)
	deliver := func(n int) {
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				relay.Deliver(ctx, Envelope{From: "s@example.com", Recipients: []string{fmt.Sprintf("r%d@example.org", i)}}, data)
			})
		}
		wg.Wait()
	}
	deliver(40) // 20 accepted, then 421s
	if srv.Throttled() == 0 {
		t.Fatal("the relay never answered 421: the test provoked nothing")
	}
	relay.pool.mu.Lock()
	limit := relay.pool.conc.limit(time.Now())
	relay.pool.mu.Unlock()
	if limit >= size {
		t.Fatalf("relay limit %d after 421s, want below %d", limit, size)
	}
	srv.SetThrottle(0, 0)
	// The server notices the connections closed after a 421 a moment
	// later; wait until it holds only the relay's idle ones.
	for deadline := time.Now().Add(2 * time.Second); srv.OpenConnections() > relay.pool.idleCount() && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	srv.ResetMaxConcurrent()
	deliver(40)

	if got := srv.MaxConcurrentConnections(); got > limit {
		t.Errorf("after the 421s the relay saw %d connections at once, want at most %d", got, limit)
	}
}
