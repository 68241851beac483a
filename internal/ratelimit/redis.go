package ratelimit

import (
	"context"
	"fmt"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// RedisKeyPrefix starts every key this package passes to redis_rate, which
// itself prepends "rate:", so keys live at "rate:carteiro:rl:<key>".
const RedisKeyPrefix = "carteiro:rl:"

// Redis is a Limiter whose budgets live in Redis, shared by every process
// using the same server (D13, CARTEIRO_REDIS_URL). Time is Redis's own clock,
// so processes with skewed clocks still agree. Keys expire in Redis once
// their bucket has refilled.
type Redis struct {
	limiter *redis_rate.Limiter
}

var _ Limiter = (*Redis)(nil)

// NewRedis returns a limiter using client.
func NewRedis(client *redis.Client) *Redis {
	return &Redis{limiter: redis_rate.NewLimiter(client)}
}

// Allow takes one request from key's budget under rule. When Redis cannot be
// reached it returns the error and a zero Result; whether to fail open is the
// caller's choice.
func (r *Redis) Allow(ctx context.Context, key string, rule Rule) (Result, error) {
	if err := rule.Validate(); err != nil {
		return Result{}, err
	}
	limit := redis_rate.Limit{Rate: rule.Rate, Period: rule.Period, Burst: rule.Burst}
	res, err := r.limiter.Allow(ctx, RedisKeyPrefix+key, limit)
	if err != nil {
		return Result{}, fmt.Errorf("ratelimit: redis allow %q: %w", key, err)
	}
	return Result{
		Allowed:   res.Allowed > 0,
		Limit:     rule.Burst,
		Remaining: res.Remaining,
		Reset:     res.ResetAfter,
		// redis_rate reports -1 when the request was allowed.
		RetryAfter: max(res.RetryAfter, 0),
	}, nil
}
