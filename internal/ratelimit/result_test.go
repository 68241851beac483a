package ratelimit

import (
	"testing"
	"time"
)

func TestTighter(t *testing.T) {
	t.Parallel()
	key := Result{Allowed: true, Limit: 100, Remaining: 30, Reset: 1400 * time.Millisecond}
	ip := Result{Allowed: true, Limit: 200, Remaining: 40, Reset: 1600 * time.Millisecond}
	ipSameRemaining := Result{Allowed: true, Limit: 200, Remaining: 30, Reset: 2 * time.Second}
	refusedShort := Result{Allowed: false, Limit: 200, Reset: 2 * time.Second, RetryAfter: 10 * time.Millisecond}
	refusedLong := Result{Allowed: false, Limit: 5, Reset: time.Minute, RetryAfter: 12 * time.Second}
	tests := []struct {
		name string
		a, b Result
		want Result
	}{
		{"fewer remaining wins", key, ip, key},
		{"fewer remaining wins, either order", ip, key, key},
		{"equal remaining: later reset", key, ipSameRemaining, ipSameRemaining},
		{"refusal beats allowance", key, refusedShort, refusedShort},
		{"refusal beats allowance, either order", refusedShort, key, refusedShort},
		{"two refusals: longer wait", refusedShort, refusedLong, refusedLong},
		{"two refusals: longer wait, either order", refusedLong, refusedShort, refusedLong},
		{"zero scope loses", Result{}, key, key},
		{"zero scope loses, either order", refusedShort, Result{}, refusedShort},
	}
	for _, tt := range tests {
		if got := Tighter(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: Tighter = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
