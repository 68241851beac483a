package webhook

import (
	"math/rand/v2"
	"time"
)

// MaxAttempts is the number of attempts of one delivery (D49); after the
// last one the delivery is exhausted.
const MaxAttempts = 8

// maxJitter is the largest fraction added to a scheduled delay. Spreading
// retries keeps the deliveries that failed together during a receiver's
// outage from all coming back in the same second when it recovers.
const maxJitter = 0.10

// D50: when a failing webhook is disabled.
const (
	// DisableAfter is how long every delivery of a webhook must have been
	// failing before it is disabled.
	DisableAfter = 5 * 24 * time.Hour
	// DisableMinAttempts is how many failed attempts that period must hold,
	// so a webhook with little traffic is not disabled on a few failures.
	DisableMinAttempts = 20
)

// retryDelay is the wait after attempt n (1..7) of D49: 5 s, 5 min, 30 min,
// 2 h, 5 h, 10 h, 10 h; about 28 hours from first to last attempt.
func retryDelay(n int) time.Duration {
	delays := [MaxAttempts - 1]time.Duration{
		5 * time.Second,
		5 * time.Minute,
		30 * time.Minute,
		2 * time.Hour,
		5 * time.Hour,
		10 * time.Hour,
		10 * time.Hour,
	}
	return delays[n-1]
}

// NextAttempt says when the attempt after attempt (the number made so far)
// is due, and false once MaxAttempts were made: the delivery is exhausted.
// The delay of D49 gets up to 10% more from jitter, which returns a value
// in [0, 1) (nil means math/rand/v2's Float64). A retryAfter from the
// receiver (429, 503) longer than that delay replaces it, capped at
// MaxRetryAfter. An attempt below 1 means none was made: due now.
func NextAttempt(attempt int, now time.Time, retryAfter time.Duration, jitter func() float64) (time.Time, bool) {
	if attempt >= MaxAttempts {
		return time.Time{}, false
	}
	if attempt < 1 {
		return now, true
	}
	if jitter == nil {
		jitter = rand.Float64
	}
	delay := retryDelay(attempt)
	// Clamped so a misbehaving source cannot shorten the delay or stretch
	// it beyond 10%; NaN fails both comparisons and counts as 0.
	j := jitter()
	if !(j > 0) {
		j = 0
	} else if j > 1 {
		j = 1
	}
	delay += time.Duration(float64(delay) * maxJitter * j)
	if retryAfter > delay {
		delay = min(retryAfter, MaxRetryAfter)
	}
	return now.Add(delay), true
}

// ShouldDisable reports whether a webhook whose deliveries have all been
// failing since failingSince, over failedAttempts attempts, must become
// disabled at now (D50). A zero failingSince means it is not failing.
func ShouldDisable(failingSince time.Time, failedAttempts int, now time.Time) bool {
	return !failingSince.IsZero() &&
		failedAttempts >= DisableMinAttempts &&
		now.Sub(failingSince) >= DisableAfter
}
