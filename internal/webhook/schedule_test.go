package webhook_test

import (
	"math"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/webhook"
)

func TestNextAttemptSchedule(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// D49: the waits after attempts 1 to 7.
	want := []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}
	if webhook.MaxAttempts != 8 {
		t.Fatalf("MaxAttempts = %d, want 8", webhook.MaxAttempts)
	}
	for i, delay := range want {
		attempt := i + 1
		at, ok := webhook.NextAttempt(attempt, now, 0, func() float64 { return 0 })
		if !ok || at.Sub(now) != delay {
			t.Errorf("after attempt %d without jitter: %s, %v; want %s", attempt, at.Sub(now), ok, delay)
		}
		at, ok = webhook.NextAttempt(attempt, now, 0, func() float64 { return 0.999999 })
		maxDelay := delay + delay/10
		if got := at.Sub(now); !ok || got < delay || got > maxDelay {
			t.Errorf("after attempt %d with top jitter: %s, want within [%s, %s]", attempt, got, delay, maxDelay)
		}
		// Random jitter stays within the bounds too.
		for range 200 {
			at, _ := webhook.NextAttempt(attempt, now, 0, nil)
			if got := at.Sub(now); got < delay || got >= maxDelay {
				t.Fatalf("after attempt %d with random jitter: %s outside [%s, %s)", attempt, got, delay, maxDelay)
			}
		}
	}
	for _, attempt := range []int{8, 9, 100} {
		if at, ok := webhook.NextAttempt(attempt, now, time.Minute, nil); ok || !at.IsZero() {
			t.Errorf("after attempt %d: %s, %v; want exhausted", attempt, at, ok)
		}
	}
	if at, ok := webhook.NextAttempt(0, now, 0, nil); !ok || !at.Equal(now) {
		t.Errorf("before any attempt: %s, %v; want due now", at, ok)
	}
}

func TestNextAttemptJitterIsClamped(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, j := range []float64{-3, math.NaN(), 0} {
		if at, _ := webhook.NextAttempt(2, now, 0, func() float64 { return j }); at.Sub(now) != 5*time.Minute {
			t.Errorf("jitter %v: delay %s, want exactly 5m", j, at.Sub(now))
		}
	}
	if at, _ := webhook.NextAttempt(2, now, 0, func() float64 { return 50 }); at.Sub(now) != 5*time.Minute+30*time.Second {
		t.Errorf("jitter 50: delay %s, want at most 10%% more", at.Sub(now))
	}
}

func TestNextAttemptHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	noJitter := func() float64 { return 0 }
	cases := []struct {
		attempt    int
		retryAfter time.Duration
		want       time.Duration
	}{
		{1, 7 * time.Second, 7 * time.Second},   // longer than 5 s: the receiver wins
		{1, 2 * time.Second, 5 * time.Second},   // shorter: the schedule wins
		{2, time.Hour, time.Hour},               // longer than 5 min
		{7, 48 * time.Hour, 24 * time.Hour},     // capped
		{3, 30 * time.Minute, 30 * time.Minute}, // equal: schedule
	}
	for _, c := range cases {
		at, ok := webhook.NextAttempt(c.attempt, now, c.retryAfter, noJitter)
		if !ok || at.Sub(now) != c.want {
			t.Errorf("attempt %d, Retry-After %s: %s, want %s", c.attempt, c.retryAfter, at.Sub(now), c.want)
		}
	}
}

func TestShouldDisable(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	fiveDays := now.Add(-5 * 24 * time.Hour)
	cases := []struct {
		name     string
		since    time.Time
		attempts int
		want     bool
	}{
		{"five days and 20 attempts", fiveDays, 20, true},
		{"longer and more", fiveDays.Add(-time.Hour), 50, true},
		{"five days but 19 attempts", fiveDays, 19, false},
		{"20 attempts but not five days", fiveDays.Add(time.Second), 40, false},
		{"not failing", time.Time{}, 100, false},
	}
	for _, c := range cases {
		if got := webhook.ShouldDisable(c.since, c.attempts, now); got != c.want {
			t.Errorf("%s: ShouldDisable = %v, want %v", c.name, got, c.want)
		}
	}
}
