package store

import (
	"context"
	"fmt"
	"hash/fnv"
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

var metricColumn = map[StatsMetric]string{
	MetricSent: "sent", MetricDelivered: "delivered", MetricFailed: "failed", MetricBounced: "bounced",
	MetricComplained: "complained", MetricOpened: "opened", MetricClicked: "clicked",
}

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
	return q.AddStats(ctx, k, map[StatsMetric]int{m: n})
}

// AddStats adds counts to several metrics of one key in one statement (a
// delivery's sent and delivered, for instance).
func (q *Queries) AddStats(ctx context.Context, k StatsKey, counts map[StatsMetric]int) error {
	for m := range counts {
		if _, ok := metricColumn[m]; !ok {
			return fmt.Errorf("store: unknown metric %q", m)
		}
	}
	vals := make([]any, 0, 6+len(metricOrder))
	vals = append(vals, k.OrgID, k.Mode, k.DomainID, k.Tag, micros(k.Hour.UTC().Truncate(time.Hour)), q.shard(k))
	for _, c := range metricOrder {
		vals = append(vals, counts[StatsMetric(c)])
	}
	_, err := q.exec(ctx, `INSERT INTO stats_counters (org_id, mode, domain_id, tag, hour, shard, sent, delivered, failed, bounced, complained, opened, clicked)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (org_id, mode, tag, domain_id, hour, shard) DO UPDATE SET
		sent = stats_counters.sent + excluded.sent, delivered = stats_counters.delivered + excluded.delivered,
		failed = stats_counters.failed + excluded.failed, bounced = stats_counters.bounced + excluded.bounced,
		complained = stats_counters.complained + excluded.complained, opened = stats_counters.opened + excluded.opened,
		clicked = stats_counters.clicked + excluded.clicked`, vals...)
	if err != nil {
		return fmt.Errorf("store: add stats: %w", classify(err))
	}
	return nil
}

// metricOrder is the column order of stats_counters' metrics.
var metricOrder = []string{"sent", "delivered", "failed", "bounced", "complained", "opened", "clicked"}

// StatsRow is the counters of one hour.
type StatsRow struct {
	Hour                                                          time.Time
	Sent, Delivered, Failed, Bounced, Complained, Opened, Clicked int64
}

// StatsHours sums counters per hour in [from, to) for an organization's
// mode, one tag ("" = all) and optionally one domain.
func (q *Queries) StatsHours(ctx context.Context, orgID, mode, tag, domainID string, from, to time.Time) ([]StatsRow, error) {
	return q.StatsSums(ctx, orgID, mode, tag, domainID, from, to, time.Hour)
}

// StatsSums is StatsHours summed per step (an hour or a UTC day), in SQL:
// a year of days is 365 rows to read back instead of up to 8,784. Each
// row's Hour is the start of its step.
func (q *Queries) StatsSums(ctx context.Context, orgID, mode, tag, domainID string, from, to time.Time, step time.Duration) ([]StatsRow, error) {
	if step != time.Hour && step != 24*time.Hour {
		return nil, fmt.Errorf("store: stats step %v: want an hour or a day", step)
	}
	// The casts keep PostgreSQL's sums bigint: SUM(bigint) is numeric,
	// which the driver decodes through math/big (most of a stats request's
	// CPU in a profile, docs/benchmarks-events.md).
	query := `SELECT hour - hour % ?, CAST(SUM(sent) AS BIGINT), CAST(SUM(delivered) AS BIGINT), CAST(SUM(failed) AS BIGINT),
		CAST(SUM(bounced) AS BIGINT), CAST(SUM(complained) AS BIGINT), CAST(SUM(opened) AS BIGINT), CAST(SUM(clicked) AS BIGINT)
		FROM stats_counters WHERE org_id = ? AND mode = ? AND tag = ? AND hour >= ? AND hour < ?`
	args := []any{step.Microseconds(), orgID, mode, tag, micros(from), micros(to)}
	if domainID != "" {
		query += ` AND domain_id = ?`
		args = append(args, domainID)
	}
	query += ` GROUP BY 1 ORDER BY 1`
	rs, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: stats: %w", classify(err))
	}
	defer rs.Close()
	var out []StatsRow
	for rs.Next() {
		var r StatsRow
		var hour int64
		if err := rs.Scan(&hour, &r.Sent, &r.Delivered, &r.Failed, &r.Bounced, &r.Complained, &r.Opened, &r.Clicked); err != nil {
			return nil, fmt.Errorf("store: stats: %w", classify(err))
		}
		r.Hour = fromMicros(hour)
		out = append(out, r)
	}
	return out, rs.Err()
}
