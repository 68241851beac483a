// Package ratelimit enforces the request limits of D13 with the generic cell
// rate algorithm (GCRA), a token bucket that keeps one timestamp per key. The
// Memory limiter serves a single process; the Redis limiter shares budgets
// between processes. Both compute the same numbers for the same requests.
package ratelimit

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Rule allows Rate requests per Period on average, with bursts of up to Burst
// requests at once. D13's defaults are Rule{Rate: 50, Period: time.Second,
// Burst: 100} per API key, Rule{Rate: 100, Period: time.Second, Burst: 200}
// per client IP and Rule{Rate: 5, Period: time.Minute, Burst: 5} for
// DELETE /domains/:id per organization.
type Rule struct {
	Rate   int
	Period time.Duration
	Burst  int
}

// Validate reports a rule that cannot limit anything sensibly.
func (r Rule) Validate() error {
	switch {
	case r.Rate <= 0:
		return fmt.Errorf("ratelimit: rate must be positive, got %d", r.Rate)
	case r.Burst <= 0:
		return fmt.Errorf("ratelimit: burst must be positive, got %d", r.Burst)
	case r.Period <= 0:
		return fmt.Errorf("ratelimit: period must be positive, got %s", r.Period)
	}
	return nil
}

// String formats the rule the way ParseRule reads it.
func (r Rule) String() string {
	if r.Period == time.Second {
		return fmt.Sprintf("%d,%d", r.Rate, r.Burst)
	}
	return fmt.Sprintf("%d/%s,%d", r.Rate, r.Period, r.Burst)
}

// emission is the time one request costs: the bucket refills one request
// every Period/Rate.
func (r Rule) emission() time.Duration {
	return max(r.Period/time.Duration(r.Rate), 1)
}

// ParseRule reads a limit setting "RATE,BURST" such as "50,100" (50 requests
// per second, bursts of 100). RATE may name its period, as in "5/m,5" or
// "5/1m,5" for five per minute; the units s, m and h stand for one second,
// minute and hour, and any Go duration is accepted.
func ParseRule(s string) (Rule, error) {
	rateText, burstText, ok := strings.Cut(s, ",")
	if !ok {
		return Rule{}, fmt.Errorf("ratelimit: rule %q: want RATE,BURST such as 50,100", s)
	}
	rateText, periodText, hasPeriod := strings.Cut(rateText, "/")
	rule := Rule{Period: time.Second}
	var err error
	if rule.Rate, err = strconv.Atoi(strings.TrimSpace(rateText)); err != nil {
		return Rule{}, fmt.Errorf("ratelimit: rule %q: rate: %w", s, err)
	}
	if rule.Burst, err = strconv.Atoi(strings.TrimSpace(burstText)); err != nil {
		return Rule{}, fmt.Errorf("ratelimit: rule %q: burst: %w", s, err)
	}
	if hasPeriod {
		if rule.Period, err = parsePeriod(strings.TrimSpace(periodText)); err != nil {
			return Rule{}, fmt.Errorf("ratelimit: rule %q: %w", s, err)
		}
	}
	if err := rule.Validate(); err != nil {
		return Rule{}, fmt.Errorf("ratelimit: rule %q: %w", s, err)
	}
	return rule, nil
}

func parsePeriod(s string) (time.Duration, error) {
	switch s {
	case "s":
		return time.Second, nil
	case "m":
		return time.Minute, nil
	case "h":
		return time.Hour, nil
	case "":
		return 0, errors.New("empty period")
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("period: %w", err)
	}
	return d, nil
}
