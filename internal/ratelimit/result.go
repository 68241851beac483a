package ratelimit

import (
	"context"
	"time"
)

// Limiter decides whether one more request under key fits rule. Callers build
// keys that name their scope (for example "key:<id>" or "ip:<addr>"), so
// different scopes never share a budget.
type Limiter interface {
	Allow(ctx context.Context, key string, rule Rule) (Result, error)
}

// Result is one decision, with what the X-RateLimit-* headers (D13) and
// Retry-After need.
type Result struct {
	// Allowed tells whether the request may proceed.
	Allowed bool
	// Limit is the number of requests allowed per window: the rule's Burst.
	Limit int
	// Remaining is the number of whole requests that would be allowed right
	// now, after this one.
	Remaining int
	// Reset is the time until the budget is full again.
	Reset time.Duration
	// RetryAfter is the time until the next request would be allowed; zero
	// when this one was.
	RetryAfter time.Duration
}

// Tighter returns the result that should be reported when a request passed
// two scopes (D13). A refusal wins over an allowance, and of two refusals the
// one with the longer wait wins, so Retry-After is honest. Of two allowances
// the one with fewer requests remaining wins, since that scope refuses first
// (counting requests rather than fractions of Limit, because a client cares
// how many more requests it can make); equal counts go to the later Reset. A
// zero Result stands for a scope that did not apply and always loses.
func Tighter(a, b Result) Result {
	switch {
	case a.Limit == 0:
		return b
	case b.Limit == 0:
		return a
	case a.Allowed != b.Allowed:
		if !a.Allowed {
			return a
		}
		return b
	case !a.Allowed:
		if b.RetryAfter > a.RetryAfter {
			return b
		}
		return a
	case a.Remaining != b.Remaining:
		if b.Remaining < a.Remaining {
			return b
		}
		return a
	case b.Reset > a.Reset:
		return b
	default:
		return a
	}
}
