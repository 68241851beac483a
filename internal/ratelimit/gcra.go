package ratelimit

import "time"

// decide applies GCRA to one request. tat is the key's theoretical arrival
// time (when its bucket would be full again; zero for a fresh key) and now the
// current time, both in Unix nanoseconds. It returns the tat to store, or the
// one given when the request is refused. The arithmetic is the one redis_rate's
// script runs inside Redis, so Memory and Redis agree.
func decide(tat, now int64, rule Rule) (int64, Result) {
	emission := int64(rule.emission())
	burstOffset := emission * int64(rule.Burst)
	tat = max(tat, now)
	newTat := tat + emission
	// slack is how far now lies past the earliest moment this request fits.
	slack := now - (newTat - burstOffset)
	if slack < 0 {
		return tat, Result{
			Allowed:    false,
			Limit:      rule.Burst,
			Remaining:  0,
			Reset:      time.Duration(tat - now),
			RetryAfter: time.Duration(-slack),
		}
	}
	return newTat, Result{
		Allowed:   true,
		Limit:     rule.Burst,
		Remaining: int(slack / emission),
		Reset:     time.Duration(newTat - now),
	}
}
