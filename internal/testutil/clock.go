package testutil

import (
	"sync"
	"time"

	"github.com/carteiro/carteiro"
)

// Clock is a carteiro.Clock that only moves when a test moves it, so code
// waiting for retries, expirations (D32's 72 hours) or warmup days can be
// tested without sleeping. Times are normalised like carteiro.SystemClock:
// UTC, truncated to the microsecond. Safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// Compile-time check that Clock can be injected wherever production code
// takes a carteiro.Clock.
var _ carteiro.Clock = (*Clock)(nil)

// NewClock returns a clock reading start (normalised to UTC microseconds).
func NewClock(start time.Time) *Clock {
	return &Clock{now: normalizeTime(start)}
}

// Now returns the clock's current time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t (normalised to UTC microseconds); it may go
// backwards, which tests of clock skew need.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = normalizeTime(t)
}

// Advance moves the clock forward by d (backward if d is negative) and
// returns the new time, so a test can use it in its assertions.
func (c *Clock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = normalizeTime(c.now.Add(d))
	return c.now
}

// normalizeTime applies the precision both stores keep, so a time read back
// from the database compares equal to the one the clock gave.
func normalizeTime(t time.Time) time.Time {
	return t.UTC().Truncate(time.Microsecond)
}
