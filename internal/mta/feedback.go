package mta

import (
	"strings"
	"time"
)

// Feedback defaults (D80).
const (
	// recoveryStep is how long a destination must go without a slow-down
	// reply for its concurrency to grow back by one.
	recoveryStep = time.Minute
	// slowDownDebounce treats slow-down replies arriving within it of the
	// last halving as the same signal: ten connections answered 421 in
	// the same second are one "slow down", not ten halvings down to 1.
	slowDownDebounce = 2 * time.Second
)

// concurrency is a destination's adaptive limit of connections (D80):
// halved by a slow-down reply (never below 1), grown back by one for each
// recoveryStep without one, never above ceiling.
type concurrency struct {
	ceiling int
	current int
	since   time.Time // when current last changed or was last confirmed
	halved  time.Time // the last halving, for slowDownDebounce
}

func newConcurrency(ceiling int, now time.Time) concurrency {
	ceiling = max(1, ceiling)
	return concurrency{ceiling: ceiling, current: ceiling, since: now}
}

// limit is the bound now, applying the recovery earned since the last
// change.
func (c *concurrency) limit(now time.Time) int {
	if steps := int(now.Sub(c.since) / recoveryStep); steps > 0 {
		c.current = min(c.ceiling, c.current+steps)
		c.since = c.since.Add(time.Duration(steps) * recoveryStep)
	}
	return c.current
}

// slowDown halves the bound unless it was halved within slowDownDebounce;
// it reports the bounds before and after, and whether it changed.
func (c *concurrency) slowDown(now time.Time) (from, to int, changed bool) {
	from = c.limit(now)
	if !c.halved.IsZero() && now.Sub(c.halved) < slowDownDebounce {
		return from, from, false
	}
	c.halved = now
	c.current = max(1, from/2)
	c.since = now
	return from, c.current, c.current != from
}

// asksToSlowDown reports a reply telling the sender to slow down: any 421
// (the server closes the connection: RFC 5321 section 3.8, and what Gmail
// and Outlook answer an unusual rate with), or a 4.7.x reply whose text
// speaks of rate or volume (Yahoo's "421 4.7.0 [TSS04] Messages temporarily
// deferred due to unexpected volume", Outlook's "451 4.7.500 Server busy").
// A 4.7.x greylisting reply ("try again later") does not count.
func asksToSlowDown(r Result) bool {
	if r.Code == 421 {
		return true
	}
	if r.Class != ClassTemporary || !strings.HasPrefix(r.Enhanced, "4.7.") {
		return false
	}
	text := strings.ToLower(r.Message)
	for _, word := range slowDownWords {
		if strings.Contains(text, word) {
			return true
		}
	}
	return false
}

// slowDownWords mark a 4.7.x reply as a request to slow down.
var slowDownWords = []string{"rate", "volume", "too many", "slow down", "throttl", "busy", "limit"}
