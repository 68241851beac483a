package ratelimit

import (
	"context"
	"errors"
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
