package carteiro

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy says how often and how long the client waits before it
// repeats a call that failed for a reason that may pass.
//
// A 429 is always retried: the server refused the request before doing
// anything. A 5xx or a network error is retried only when repeating the call
// is harmless: reads, PUT, DELETE, and sends, which carry an idempotency key
// (D22). Retry-After is honoured, up to MaxWait.
type RetryPolicy struct {
	// MaxRetries is how many times a call is repeated; 0 disables retries.
	MaxRetries int
	// BaseDelay is the first wait without Retry-After; it doubles on each
	// attempt, with jitter.
	BaseDelay time.Duration
	// MaxWait bounds any one wait, Retry-After included: an answer asking
	// for longer is returned as the error instead.
	MaxWait time.Duration
}

// DefaultRetryPolicy: 3 retries, from 500 ms, waiting at most 30 s at once.
var DefaultRetryPolicy = RetryPolicy{MaxRetries: 3, BaseDelay: 500 * time.Millisecond, MaxWait: 30 * time.Second}

// NoRetries makes every call once.
var NoRetries = RetryPolicy{}

// decide tells whether an error answer is retried, and after how long.
func (p RetryPolicy) decide(resp *http.Response, idempotent bool, attempt int) (bool, time.Duration) {
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
	case resp.StatusCode >= 500 && idempotent:
	default:
		return false, 0
	}
	wait := p.backoff(attempt)
	if s, ok := retryAfterSeconds(resp.Header.Get("Retry-After")); ok {
		wait = time.Duration(s) * time.Second
		if wait > p.MaxWait {
			return false, 0
		}
	}
	return true, wait
}

// backoff is BaseDelay·2^attempt with ±20 % jitter, at most MaxWait.
func (p RetryPolicy) backoff(attempt int) time.Duration {
	d := p.BaseDelay << min(attempt, 16)
	d = time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
	return min(d, p.MaxWait)
}

// retryAfterSeconds reads a Retry-After in seconds (the form Carteiro
// sends) or as an HTTP date.
func retryAfterSeconds(v string) (int, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return s, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(int(time.Until(t).Seconds()+0.999), 0), true
	}
	return 0, false
}
