package ratelimit

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type failing struct{ calls int }

func (f *failing) Allow(context.Context, string, Rule) (Result, error) {
	f.calls++
	return Result{}, errors.New("redis down")
}

func TestFallbackTakesOverAndCoolsDown(t *testing.T) {
	clock := newFakeClock()
	primary := &failing{}
	failures := 0
	f := &Fallback{Primary: primary, Secondary: NewMemory(clock), Clock: clock, Cooldown: 5 * time.Second,
		OnFailure: func(error) { failures++ }}
	rule := Rule{Rate: 1, Period: time.Second, Burst: 2}
	for i, want := range []bool{true, true, false} {
		res, err := f.Allow(context.Background(), "k", rule)
		if err != nil || res.Allowed != want || res.Limit != 2 {
			t.Fatalf("request %d: %+v %v, want allowed=%v from the fallback", i, res, err, want)
		}
	}
	if primary.calls != 1 || failures != 1 {
		t.Fatalf("primary asked %d times during the cool-down, failures %d; want 1 and 1", primary.calls, failures)
	}
	clock.Advance(6 * time.Second)
	_, _ = f.Allow(context.Background(), "k", rule)
	if primary.calls != 2 {
		t.Fatalf("primary not retried after the cool-down")
	}
}

// blocking fails every call once release is closed, so that many requests
// are in flight on Primary when it fails, as during a Redis outage.
type blocking struct{ release chan struct{} }

func (b *blocking) Allow(context.Context, string, Rule) (Result, error) {
	<-b.release
	return Result{}, errors.New("redis down")
}

func TestFallbackReportsAnOutageOncePerCooldown(t *testing.T) {
	clock := newFakeClock()
	primary := &blocking{release: make(chan struct{})}
	var failures atomic.Int32
	f := &Fallback{Primary: primary, Secondary: NewMemory(clock), Clock: clock, Cooldown: 5 * time.Second,
		OnFailure: func(error) { failures.Add(1) }}
	rule := Rule{Rate: 1000, Period: time.Second, Burst: 1000}
	round := func() {
		var wg sync.WaitGroup
		started := make(chan struct{}, 10)
		for range 10 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				started <- struct{}{}
				_, _ = f.Allow(context.Background(), "k", rule)
			}()
		}
		for range 10 {
			<-started
		}
		time.Sleep(20 * time.Millisecond) // let them reach Primary
		close(primary.release)
		wg.Wait()
	}
	round()
	if n := failures.Load(); n != 1 {
		t.Fatalf("10 requests in flight when Redis failed reported %d failures, want 1", n)
	}
	clock.Advance(6 * time.Second)
	primary.release = make(chan struct{})
	round()
	if n := failures.Load(); n != 2 {
		t.Fatalf("after the cool-down, %d failures reported in all, want 2 (one per cool-down)", n)
	}
}
