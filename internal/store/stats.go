package store

import (
	"context"
	"fmt"
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

// StatsKey is one counter row: an organization's mode, a domain ("" for
// emails without one), a tag ("" for all emails) and a UTC hour.
type StatsKey struct {
	OrgID, Mode, DomainID, Tag string
	Hour                       time.Time
}

// IncrementStats adds n to one metric. Counters are kept as events happen,
// so reading statistics never scans emails (D54).
func (q *Queries) IncrementStats(ctx context.Context, k StatsKey, m StatsMetric, n int) error {
	col, ok := metricColumn[m]
	if !ok {
		return fmt.Errorf("store: unknown metric %q", m)
	}
	vals := make([]any, 0, 13)
	vals = append(vals, k.OrgID, k.Mode, k.DomainID, k.Tag, micros(k.Hour.UTC().Truncate(time.Hour)))
	for _, c := range metricOrder {
		v := 0
		if c == col {
			v = n
		}
		vals = append(vals, v)
	}
	vals = append(vals, n)
	_, err := q.exec(ctx, `INSERT INTO stats_counters (org_id, mode, domain_id, tag, hour, sent, delivered, failed, bounced, complained, opened, clicked)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (org_id, mode, tag, domain_id, hour) DO UPDATE SET `+col+` = stats_counters.`+col+` + ?`, vals...)
	if err != nil {
		return fmt.Errorf("store: increment stats: %w", classify(err))
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
	query := `SELECT hour, SUM(sent), SUM(delivered), SUM(failed), SUM(bounced), SUM(complained), SUM(opened), SUM(clicked)
		FROM stats_counters WHERE org_id = ? AND mode = ? AND tag = ? AND hour >= ? AND hour < ?`
	args := []any{orgID, mode, tag, micros(from), micros(to)}
	if domainID != "" {
		query += ` AND domain_id = ?`
		args = append(args, domainID)
	}
	query += ` GROUP BY hour ORDER BY hour`
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
