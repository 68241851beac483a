package ratelimit

import (
	"context"
	"hash/maphash"
	"sync"
	"time"

	"github.com/carteiro/carteiro"
)

const (
	// shardCount spreads keys over independent locks so concurrent requests
	// for different keys rarely wait for each other.
	shardCount = 64
	// minSweepLen is the smallest shard size worth sweeping for growth.
	minSweepLen = 64
	// sweepInterval bounds how long an idle key can outlive its refill even
	// when a shard stops growing.
	sweepInterval = time.Minute
)

// Memory is a Limiter for a single process. Each key costs one timestamp; a
// key whose bucket has refilled is indistinguishable from an unknown key, so
// it is evicted, and memory stays proportional to the keys active within
// their refill time. It is safe for concurrent use.
type Memory struct {
	clock  carteiro.Clock
	seed   maphash.Seed
	shards [shardCount]memoryShard
}

// memoryShard holds the theoretical arrival times (see decide) of its keys.
type memoryShard struct {
	mu   sync.Mutex
	tats map[string]int64
	// sweepAtLen is the size at which the shard next drops refilled keys; it
	// doubles the size left by the last sweep, so sweeping stays amortized
	// O(1) per request.
	sweepAtLen int
	lastSweep  int64
}

var _ Limiter = (*Memory)(nil)

// NewMemory returns an in-memory limiter reading time from clock.
func NewMemory(clock carteiro.Clock) *Memory {
	m := &Memory{clock: clock, seed: maphash.MakeSeed()}
	now := clock.Now().UnixNano()
	for i := range m.shards {
		m.shards[i] = memoryShard{tats: map[string]int64{}, sweepAtLen: minSweepLen, lastSweep: now}
	}
	return m
}

// Allow takes one request from key's budget under rule.
func (m *Memory) Allow(_ context.Context, key string, rule Rule) (Result, error) {
	if err := rule.Validate(); err != nil {
		return Result{}, err
	}
	now := m.clock.Now().UnixNano()
	s := &m.shards[maphash.String(m.seed, key)%shardCount]
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maybeSweep(now)
	tat, res := decide(s.tats[key], now, rule)
	if res.Allowed {
		s.tats[key] = tat
	}
	return res, nil
}

// Len returns the number of keys currently held, for metrics and tests.
func (m *Memory) Len() int {
	n := 0
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		n += len(s.tats)
		s.mu.Unlock()
	}
	return n
}

// maybeSweep drops refilled keys when the shard has doubled since its last
// sweep or a sweepInterval has passed.
func (s *memoryShard) maybeSweep(now int64) {
	if len(s.tats) < s.sweepAtLen && now-s.lastSweep < int64(sweepInterval) {
		return
	}
	before := len(s.tats)
	for key, tat := range s.tats {
		if tat <= now {
			delete(s.tats, key)
		}
	}
	after := len(s.tats)
	// Go maps keep their buckets after deletes; copying into a fresh map is
	// what actually returns the memory of a large wave of departed keys.
	if before > minSweepLen && after <= before/2 {
		fresh := make(map[string]int64, after)
		for key, tat := range s.tats {
			fresh[key] = tat
		}
		s.tats = fresh
	}
	s.sweepAtLen = max(minSweepLen, 2*after)
	s.lastSweep = now
}
