package ratelimit

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/carteiro/carteiro"
)

// Fallback limits with Primary (Redis, shared by every process) and, when
// Primary fails, with Secondary (this process's memory) for a cool-down, so
// a Redis outage neither takes the API down nor makes every request wait
// for Redis's connection retries.
type Fallback struct {
	Primary, Secondary Limiter
	Clock              carteiro.Clock
	Cooldown           time.Duration
	OnFailure          func(error)

	skipUntil atomic.Int64 // unix nanoseconds
}

// Allow implements Limiter.
//
// Requests that find the cool-down over all ask Primary; when it fails, only
// the one whose failure starts the next cool-down reports it, so a Redis
// outage is logged once per cool-down and node, not once per request that
// was in flight (8 to 10 lines per 5 s before).
func (f *Fallback) Allow(ctx context.Context, key string, rule Rule) (Result, error) {
	now := f.Clock.Now()
	if until := f.skipUntil.Load(); now.UnixNano() >= until {
		res, err := f.Primary.Allow(ctx, key, rule)
		if err == nil {
			return res, nil
		}
		if f.skipUntil.CompareAndSwap(until, now.Add(f.Cooldown).UnixNano()) && f.OnFailure != nil {
			f.OnFailure(err)
		}
	}
	return f.Secondary.Allow(ctx, key, rule)
}
