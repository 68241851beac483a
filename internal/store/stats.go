package store

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"time"
)

// StatsMetric names one counter of D54.
type StatsMetric string

const (
	MetricSent       StatsMetric = "sent"
	MetricDelivered  StatsMetric = "delivered"
	MetricFailed     StatsMetric = "failed"
	MetricBounced    StatsMetric = "bounced"
	MetricComplained StatsMetric = "complained"
	MetricOpened     StatsMetric = "opened"
	MetricClicked    StatsMetric = "clicked"
)

// StatsKey is one counter: an organization's mode, a domain ("" for
// emails without one), a tag ("" for all emails) and a UTC hour.
type StatsKey struct {
	OrgID, Mode, DomainID, Tag string
	Hour                       time.Time
	// EmailID is the email counted. On PostgreSQL it picks which of the
	// key's shard rows takes the count, so concurrent emails seldom wait
	// for one another's row locks; every count of one email goes to the
	// same shard, so a transaction locks its rows in the order it first
	// touches them (the all-emails row first), the same for every email.
	EmailID string
}

// statsShards is how many rows of one key PostgreSQL's counts spread over:
// with the 50 delivery workers about six share a row instead of fifty,
// while a busy hour's reads sum at most eight rows instead of one.
const statsShards = 8

// shard is the row of k that takes a count.
func (q *Queries) shard(k StatsKey) int64 {
	if q.dialect != Postgres || k.EmailID == "" {
		return 0 // SQLite's writes take turns whatever the rows
	}
	h := fnv.New32a()
	h.Write([]byte(k.EmailID))
	return int64(h.Sum32() % statsShards)
}

// IncrementStats adds n to one metric. Counters are kept as events happen,
// so reading statistics never scans emails (D54).
func (q *Queries) IncrementStats(ctx context.Context, k StatsKey, m StatsMetric, n int) error {
	return q.AddStats(ctx, StatsAddition{Key: k, Counts: map[StatsMetric]int{m: n}})
}

// StatsAddition is counts to add to the metrics of one key.
type StatsAddition struct {
	Key    StatsKey
	Counts map[StatsMetric]int
}

// Every count goes to two buckets of its key: its hour and its UTC day.
// GET /stats reads days for days, weeks and months (a year is 365 rows a
// key instead of up to 8,784 hours) and hours only for hours.
const (
	hourBucket = 1  // bucket_hours of an hour's counters
	dayBucket  = 24 // bucket_hours of a UTC day's counters
)

// statsRow is one counter row to add to, before it becomes SQL values.
type statsRow struct {
	tag, domainID      string
	bucketHours, shard int64
	start              int64 // micros
	counts             [7]int64
}

// AddStats adds the counts of several keys in one statement: a delivery's
// sent and delivered, for all emails and for each of its tags. The rows are
// written in one order, hours before days, then by time, tag, domain and
// shard, whatever the order of adds: two transactions that both count
// into some of the same rows lock them in the same order and cannot
// deadlock.
func (q *Queries) AddStats(ctx context.Context, adds ...StatsAddition) error {
	if len(adds) == 0 {
		return nil
	}
	org, mode := adds[0].Key.OrgID, adds[0].Key.Mode
	byKey := map[statsRow]*statsRow{}
	var rows []*statsRow
	for _, a := range adds {
		if a.Key.OrgID != org || a.Key.Mode != mode {
			return fmt.Errorf("store: add stats: one organization and mode per call")
		}
		var counts [7]int64
		for m, n := range a.Counts {
			i, ok := metricIndex[m]
			if !ok {
				return fmt.Errorf("store: unknown metric %q", m)
			}
			counts[i] += int64(n)
		}
		hour := micros(a.Key.Hour.UTC().Truncate(time.Hour))
		day := hour - hour%(24*time.Hour).Microseconds()
		for _, b := range []struct{ hours, start int64 }{{hourBucket, hour}, {dayBucket, day}} {
			key := statsRow{tag: a.Key.Tag, domainID: a.Key.DomainID, bucketHours: b.hours, shard: q.shard(a.Key), start: b.start}
			if r := byKey[key]; r != nil {
				// One statement may not update a row twice: a key given
				// twice adds up here.
				for i := range counts {
					r.counts[i] += counts[i]
				}
				continue
			}
			r := key
			r.counts = counts
			byKey[key] = &r
			rows = append(rows, &r)
		}
	}
	if q.settled != nil {
		firstDay := rows[0].start
		for _, r := range rows {
			if r.bucketHours == dayBucket {
				firstDay = min(firstDay, r.start)
			}
		}
		wrote := func() { q.settled.wrote(firstDay) }
		if q.endHooks != nil {
			*q.endHooks = append(*q.endHooks, wrote)
		} else {
			defer wrote() // the statement commits by itself
		}
	}
	slices.SortFunc(rows, func(a, b *statsRow) int {
		return cmp.Or(cmp.Compare(a.bucketHours, b.bucketHours), cmp.Compare(a.start, b.start),
			cmp.Compare(a.tag, b.tag), cmp.Compare(a.domainID, b.domainID), cmp.Compare(a.shard, b.shard))
	})
	values := make([][]any, len(rows))
	for i, r := range rows {
		v := make([]any, 0, 7+len(r.counts))
		v = append(v, org, mode, r.domainID, r.tag, r.bucketHours, r.start, r.shard)
		for _, n := range r.counts {
			v = append(v, n)
		}
		values[i] = v
	}
	err := q.upsertRows(ctx, "stats_counters",
		"org_id, mode, domain_id, tag, bucket_hours, bucket_start, shard, sent, delivered, failed, bounced, complained, opened, clicked",
		`ON CONFLICT (org_id, mode, tag, bucket_hours, bucket_start, domain_id, shard) DO UPDATE SET
		sent = stats_counters.sent + excluded.sent, delivered = stats_counters.delivered + excluded.delivered,
		failed = stats_counters.failed + excluded.failed, bounced = stats_counters.bounced + excluded.bounced,
		complained = stats_counters.complained + excluded.complained, opened = stats_counters.opened + excluded.opened,
		clicked = stats_counters.clicked + excluded.clicked`, values)
	if err != nil {
		return fmt.Errorf("store: add stats: %w", err)
	}
	return nil
}

// metricIndex is each metric's place in the column order of
// stats_counters (sent, delivered, failed, bounced, complained, opened,
// clicked).
var metricIndex = map[StatsMetric]int{
	MetricSent: 0, MetricDelivered: 1, MetricFailed: 2, MetricBounced: 3,
	MetricComplained: 4, MetricOpened: 5, MetricClicked: 6,
}

// StatsRow is the counters of one bucket, an hour or a day.
type StatsRow struct {
	Hour                                                          time.Time
	Sent, Delivered, Failed, Bounced, Complained, Opened, Clicked int64
}

// StatsHours sums counters per hour in [from, to) for an organization's
// mode, one tag ("" = all) and optionally one domain.
func (q *Queries) StatsHours(ctx context.Context, orgID, mode, tag, domainID string, from, to time.Time) ([]StatsRow, error) {
	return q.StatsSums(ctx, orgID, mode, tag, domainID, from, to, time.Hour)
}

// StatsSums is the counters summed per step, an hour or a UTC day, of the
// steps that start in [from, to); each row's Hour is its step's start. Days
// are read from the day buckets: a year is 365 rows a key, not up to 8,784.
func (q *Queries) StatsSums(ctx context.Context, orgID, mode, tag, domainID string, from, to time.Time, step time.Duration) ([]StatsRow, error) {
	var bucket int64
	switch step {
	case time.Hour:
		bucket = hourBucket
	case 24 * time.Hour:
		bucket = dayBucket
	default:
		return nil, fmt.Errorf("store: stats step %v: want an hour or a day", step)
	}
	// The sums add up the shards and, without a domain, the domains. The
	// casts keep PostgreSQL's sums bigint: SUM(bigint) is numeric, which
	// the driver decodes through math/big (most of a stats request's CPU
	// in a profile, docs/benchmarks-events.md).
	query := `SELECT bucket_start, CAST(SUM(sent) AS BIGINT), CAST(SUM(delivered) AS BIGINT), CAST(SUM(failed) AS BIGINT),
		CAST(SUM(bounced) AS BIGINT), CAST(SUM(complained) AS BIGINT), CAST(SUM(opened) AS BIGINT), CAST(SUM(clicked) AS BIGINT)
		FROM stats_counters WHERE org_id = ? AND mode = ? AND tag = ? AND bucket_hours = ? AND bucket_start >= ? AND bucket_start < ?`
	args := []any{orgID, mode, tag, bucket, micros(from), micros(to)}
	if domainID != "" {
		query += ` AND domain_id = ?`
		args = append(args, domainID)
	}
	query += ` GROUP BY bucket_start ORDER BY bucket_start`
	rs, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: stats: %w", classify(err))
	}
	defer rs.Close()
	var out []StatsRow
	for rs.Next() {
		var r StatsRow
		var start int64
		if err := rs.Scan(&start, &r.Sent, &r.Delivered, &r.Failed, &r.Bounced, &r.Complained, &r.Opened, &r.Clicked); err != nil {
			return nil, fmt.Errorf("store: stats: %w", classify(err))
		}
		r.Hour = fromMicros(start)
		out = append(out, r)
	}
	return out, rs.Err()
}
