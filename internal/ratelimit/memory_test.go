package ratelimit

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// perKey is D13's default per API key limit.
var perKey = Rule{Rate: 50, Period: time.Second, Burst: 100}

func allow(t *testing.T, l Limiter, key string, rule Rule) Result {
	t.Helper()
	res, err := l.Allow(context.Background(), key, rule)
	if err != nil {
		t.Fatalf("Allow(%q): %v", key, err)
	}
	return res
}

func TestMemoryBurstThenRefusal(t *testing.T) {
	t.Parallel()
	m := NewMemory(newFakeClock())
	for i := range perKey.Burst {
		res := allow(t, m, "k", perKey)
		want := Result{
			Allowed:   true,
			Limit:     100,
			Remaining: 99 - i,
			// Each request pushes the full-again time out by 1/rate.
			Reset: time.Duration(i+1) * 20 * time.Millisecond,
		}
		if res != want {
			t.Fatalf("request %d: %+v, want %+v", i+1, res, want)
		}
	}
	res := allow(t, m, "k", perKey)
	want := Result{Allowed: false, Limit: 100, Remaining: 0, Reset: 2 * time.Second, RetryAfter: 20 * time.Millisecond}
	if res != want {
		t.Fatalf("request 101: %+v, want %+v", res, want)
	}
	// A refusal costs nothing: asking again gives the same answer.
	if again := allow(t, m, "k", perKey); again != want {
		t.Fatalf("request 102: %+v, want %+v", again, want)
	}
	// Other keys keep their own budget.
	if other := allow(t, m, "other", perKey); !other.Allowed || other.Remaining != 99 {
		t.Fatalf("other key: %+v", other)
	}
}

func TestMemoryRefill(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	m := NewMemory(clock)
	for range perKey.Burst {
		allow(t, m, "k", perKey)
	}

	clock.Advance(19 * time.Millisecond)
	if res := allow(t, m, "k", perKey); res.Allowed || res.RetryAfter != time.Millisecond {
		t.Fatalf("1ms before the next token: %+v", res)
	}
	clock.Advance(time.Millisecond)
	if res := allow(t, m, "k", perKey); !res.Allowed || res.Remaining != 0 || res.Reset != 2*time.Second {
		t.Fatalf("exactly one token back: %+v", res)
	}

	// Half the bucket back after one second: 50 tokens, one spent now.
	clock.Advance(time.Second)
	res := allow(t, m, "k", perKey)
	want := Result{Allowed: true, Limit: 100, Remaining: 49, Reset: 1020 * time.Millisecond}
	if res != want {
		t.Fatalf("after 1s: %+v, want %+v", res, want)
	}

	// Long idle: a full bucket again.
	clock.Advance(time.Hour)
	res = allow(t, m, "k", perKey)
	want = Result{Allowed: true, Limit: 100, Remaining: 99, Reset: 20 * time.Millisecond}
	if res != want {
		t.Fatalf("after an hour: %+v, want %+v", res, want)
	}
}

// TestMemoryPerMinuteRule covers D13's DELETE /domains/:id limit.
func TestMemoryPerMinuteRule(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	m := NewMemory(clock)
	rule := Rule{Rate: 5, Period: time.Minute, Burst: 5}
	for i := range 5 {
		if res := allow(t, m, "org:1", rule); !res.Allowed || res.Remaining != 4-i {
			t.Fatalf("delete %d: %+v", i+1, res)
		}
	}
	res := allow(t, m, "org:1", rule)
	if res.Allowed || res.RetryAfter != 12*time.Second || res.Reset != time.Minute || res.Limit != 5 {
		t.Fatalf("sixth delete: %+v", res)
	}
	clock.Advance(12 * time.Second)
	if res := allow(t, m, "org:1", rule); !res.Allowed || res.Remaining != 0 {
		t.Fatalf("after 12s: %+v", res)
	}
}

func TestMemoryRejectsInvalidRule(t *testing.T) {
	t.Parallel()
	m := NewMemory(newFakeClock())
	for _, rule := range []Rule{{}, {Rate: 1, Period: time.Second}, {Rate: 1, Burst: 1}, {Burst: 1, Period: time.Second}} {
		if _, err := m.Allow(context.Background(), "k", rule); err == nil {
			t.Errorf("Allow with %+v: no error", rule)
		}
	}
}

// TestMemoryConcurrentBudget checks the budget is exact under contention:
// with the clock standing still, exactly Burst requests get through.
func TestMemoryConcurrentBudget(t *testing.T) {
	t.Parallel()
	m := NewMemory(newFakeClock())
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				res, err := m.Allow(context.Background(), "shared", perKey)
				if err != nil {
					t.Error(err)
					return
				}
				if res.Allowed {
					allowed.Add(1)
				}
				// Unrelated keys on other shards at the same time.
				if _, err := m.Allow(context.Background(), fmt.Sprintf("g%d-%d", g, i), perKey); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if got := allowed.Load(); got != int64(perKey.Burst) {
		t.Fatalf("allowed %d of 400 concurrent requests, want %d", got, perKey.Burst)
	}
}

// TestMemoryEvictsAfterIdle fills the limiter with many keys, lets them all
// refill, and checks they are gone once new traffic arrives.
func TestMemoryEvictsAfterIdle(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	m := NewMemory(clock)
	const keys = 50_000
	for i := range keys {
		allow(t, m, fmt.Sprintf("old-%d", i), perKey)
	}
	if got := m.Len(); got != keys {
		t.Fatalf("Len = %d, want %d: keys still refilling must stay", got, keys)
	}
	clock.Advance(2 * sweepInterval)
	for i := range keys / 10 {
		allow(t, m, fmt.Sprintf("new-%d", i), perKey)
	}
	if got := m.Len(); got != keys/10 {
		t.Fatalf("Len = %d after every old key refilled, want only the %d new ones", got, keys/10)
	}
	// Evicted keys start again with a full budget.
	if res := allow(t, m, "old-1", perKey); res.Remaining != 99 {
		t.Fatalf("evicted key came back with %+v", res)
	}
}

// TestMemoryStaysBounded streams distinct keys with the clock moving, as a
// scan from many client IPs would: memory follows the keys active within the
// refill time, not every key ever seen.
func TestMemoryStaysBounded(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	m := NewMemory(clock)
	rule := Rule{Rate: 1, Period: time.Second, Burst: 1} // refills in 1s
	const (
		requests = 100_000
		step     = 100 * time.Microsecond // 10,000 new keys per refill time
		live     = int(time.Second / step)
	)
	bound := 2*live + shardCount*minSweepLen
	peak := 0
	for i := range requests {
		allow(t, m, fmt.Sprintf("ip-%d", i), rule)
		clock.Advance(step)
		if i%1000 == 0 {
			peak = max(peak, m.Len())
		}
	}
	t.Logf("peak %d keys, %d live, bound %d", peak, live, bound)
	if peak > bound {
		t.Fatalf("peak of %d keys for %d live ones, want at most %d", peak, live, bound)
	}
	if peak < live {
		t.Fatalf("peak of %d keys below the %d live ones: evicting too early", peak, live)
	}
}
