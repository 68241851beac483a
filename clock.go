package carteiro

import "time"

// Clock is injected everywhere time matters, so tests can move it (D32's 72
// hours, retries, warmup days) without sleeping.
type Clock interface {
	Now() time.Time
}

// SystemClock reads the real time, in UTC and truncated to microseconds
// because that is the precision both stores keep.
type SystemClock struct{}

// Now returns the current UTC time at microsecond precision.
func (SystemClock) Now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }
