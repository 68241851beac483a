package store

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"
)

// settledDays keeps the day sums of statistics for days that no longer
// change, so GET /stats over a year reads its past from memory and only the
// last day or two from the database (docs/architecture.md, "Statistics
// counters"). A day is settled when the caller says so: the app's rule is an
// hour after it ended by its clock, since every count is stamped with the
// time of its event.
//
// Writes through this store keep the copies right even when a count lands in
// a settled day (a clock moved back): once its transaction has ended, a
// write into a day before the latest settled bound any read has used drops
// every copy, and a read that began before the drop keeps its rows to
// itself. A write from another process into a day this one has settled
// (only a clock an hour or more behind would make one) is not seen here
// until restart.
type settledDays struct {
	mu      sync.Mutex
	entries map[settledKey]*settledEntry
	// horizon is the latest settled bound any read has used (micros).
	horizon int64
	// gen changes whenever the copies are dropped.
	gen uint64
}

// settledKey is one series of day sums.
type settledKey struct{ org, mode, tag, domainID string }

// settledEntry is the sums of one series for the days in [from, to), in
// order; days without counts have no row.
type settledEntry struct {
	from, to int64 // micros
	rows     []StatsRow
}

// maxSettledSeries bounds the memory: a year of one series is about 30 KB.
const maxSettledSeries = 512

func newSettledDays() *settledDays {
	return &settledDays{entries: map[settledKey]*settledEntry{}}
}

// wrote tells that a write whose earliest day is firstDay has committed or
// rolled back.
func (c *settledDays) wrote(firstDay int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if firstDay < c.horizon {
		clear(c.entries)
		c.gen++
	}
}

// StatsDays sums the counters per UTC day of the days in [from, to), both
// UTC midnights, like StatsSums with a step of a day. Days before settled (a
// UTC midnight the caller knows no new event can be stamped before) come
// from the copies of settledDays when it holds them, and are copied there
// when it does not.
func (q *Queries) StatsDays(ctx context.Context, orgID, mode, tag, domainID string, from, to, settled time.Time) ([]StatsRow, error) {
	c := q.settled
	if c == nil {
		return q.StatsSums(ctx, orgID, mode, tag, domainID, from, to, 24*time.Hour)
	}
	key := settledKey{org: orgID, mode: mode, tag: tag, domainID: domainID}
	lo, hi := micros(from), micros(to)
	c.mu.Lock()
	bound := min(hi, micros(settled))
	if bound <= lo {
		c.mu.Unlock()
		return q.StatsSums(ctx, orgID, mode, tag, domainID, from, to, 24*time.Hour)
	}
	c.horizon = max(c.horizon, bound)
	gen := c.gen
	if e := c.entries[key]; e != nil && e.from <= lo && bound <= e.to {
		rows := e.between(lo, bound)
		c.mu.Unlock()
		if bound == hi {
			return rows, nil
		}
		recent, err := q.StatsSums(ctx, orgID, mode, tag, domainID, fromMicros(bound), to, 24*time.Hour)
		return append(rows, recent...), err
	}
	c.mu.Unlock()

	rows, err := q.StatsSums(ctx, orgID, mode, tag, domainID, from, to, 24*time.Hour)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen {
		c.keepLocked(key, &settledEntry{from: lo, to: bound, rows: slices.Clone(settledPart(rows, lo, bound))})
	}
	return rows, nil
}

// keepLocked stores e, joined with the series' copy when the two ranges
// touch.
func (c *settledDays) keepLocked(key settledKey, e *settledEntry) {
	if old := c.entries[key]; old != nil && e.from <= old.to && old.from <= e.to {
		rows := append(old.between(old.from, e.from), e.rows...)
		rows = append(rows, old.between(e.to, old.to)...)
		e = &settledEntry{from: min(e.from, old.from), to: max(e.to, old.to), rows: rows}
	} else if old == nil && len(c.entries) >= maxSettledSeries {
		for k := range c.entries { // any one: map order is random
			delete(c.entries, k)
			break
		}
	}
	c.entries[key] = e
}

// between is a new slice of the rows of the days in [lo, hi).
func (e *settledEntry) between(lo, hi int64) []StatsRow {
	return slices.Clone(settledPart(e.rows, lo, hi))
}

// settledPart is the part of rows, in day order, in [lo, hi).
func settledPart(rows []StatsRow, lo, hi int64) []StatsRow {
	byDay := func(r StatsRow, t int64) int { return cmp.Compare(micros(r.Hour), t) }
	i, _ := slices.BinarySearchFunc(rows, lo, byDay)
	j, _ := slices.BinarySearchFunc(rows, hi, byDay)
	return rows[i:max(i, j)]
}
