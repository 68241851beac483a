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
func (f *Fallback) Allow(ctx context.Context, key string, rule Rule) (Result, error) {
	now := f.Clock.Now()
	if now.UnixNano() >= f.skipUntil.Load() {
		res, err := f.Primary.Allow(ctx, key, rule)
		if err == nil {
			return res, nil
		}
		f.skipUntil.Store(now.Add(f.Cooldown).UnixNano())
		if f.OnFailure != nil {
			f.OnFailure(err)
		}
	}
	return f.Secondary.Allow(ctx, key, rule)
}
