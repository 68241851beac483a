package app

import (
	"context"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// StatsQuery is GET /stats after decoding (D54).
type StatsQuery struct {
	Start, End  *time.Time
	Granularity string
	DomainID    string
	Tag         string
}

// StatsBucket is one bucket of the series.
type StatsBucket struct {
	Start                                                         time.Time
	Sent, Delivered, Failed, Bounced, Complained, Opened, Clicked int64
}

func (b *StatsBucket) add(r store.StatsRow) {
	b.Sent += r.Sent
	b.Delivered += r.Delivered
	b.Failed += r.Failed
	b.Bounced += r.Bounced
	b.Complained += r.Complained
	b.Opened += r.Opened
	b.Clicked += r.Clicked
}

// Stats is GET /stats' answer.
type Stats struct {
	Start, End  time.Time
	Granularity string
	Totals      StatsBucket
	Series      []StatsBucket
}

// maxBuckets bounds one answer (a year of hours is 8,784).
const maxBuckets = 10_000

// bucketStart truncates t to its bucket in UTC: weeks start on Monday.
func bucketStart(t time.Time, g string) time.Time {
	t = t.UTC()
	switch g {
	case "hour":
		return t.Truncate(time.Hour)
	case "week":
		d := utcDay(t)
		return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
	case "month":
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	return utcDay(t)
}

func nextBucket(t time.Time, g string) time.Time {
	switch g {
	case "hour":
		return t.Add(time.Hour)
	case "week":
		return t.AddDate(0, 0, 7)
	case "month":
		return t.AddDate(0, 1, 0)
	}
	return t.AddDate(0, 0, 1)
}

// settleAfter is how long after a UTC day ends its statistics are final.
// Every count is stamped with the time of its event (statsAdditions), and its
// write lands seconds later; an hour also covers clocks of several nodes
// that disagree by less than that.
const settleAfter = time.Hour

// settledBefore is the UTC midnight before which no new count can arrive.
func settledBefore(now time.Time) time.Time { return utcDay(now.Add(-settleAfter)) }

// GetStats sums the hourly counters into buckets over [start, end], every
// bucket present, zeros included (D54). Test mode is counted apart.
func (a *App) GetStats(ctx context.Context, p *Principal, q StatsQuery) (*Stats, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	g := q.Granularity
	switch g {
	case "":
		g = "day"
	case "hour", "day", "week", "month":
	default:
		return nil, carteiro.Invalid("granularity", "invalid_value")
	}
	now := a.clock.Now()
	end := now
	if q.End != nil {
		end = *q.End
	}
	start := end.AddDate(0, 0, -30)
	if q.Start != nil {
		start = *q.Start
	}
	if end.Before(start) {
		return nil, carteiro.Invalid("endDate", "out_of_range")
	}
	if q.DomainID != "" {
		if _, err := a.store.Domain(ctx, p.Org.ID, q.DomainID); err != nil {
			return nil, storeErr(err)
		}
	}
	first := bucketStart(start, g)
	var buckets []StatsBucket
	index := map[time.Time]int{}
	for b := first; !b.After(end); b = nextBucket(b, g) {
		if len(buckets) == maxBuckets {
			return nil, carteiro.Invalid("granularity", "out_of_range")
		}
		index[b] = len(buckets)
		buckets = append(buckets, StatsBucket{Start: b})
	}
	// Days, weeks and months are whole UTC days: the store keeps day sums
	// next to the hours, so a year reads back 365 rows instead of 8,784,
	// and those of settled days from its memory.
	last := nextBucket(bucketStart(end, g), g)
	var rows []store.StatsRow
	var err error
	if g == "hour" {
		rows, err = a.store.StatsHours(ctx, p.Org.ID, string(p.Mode()), q.Tag, q.DomainID, first, last)
	} else {
		rows, err = a.store.StatsDays(ctx, p.Org.ID, string(p.Mode()), q.Tag, q.DomainID, first, last, settledBefore(now))
	}
	if err != nil {
		return nil, storeErr(err)
	}
	out := &Stats{Start: start, End: end, Granularity: g, Series: buckets}
	for _, r := range rows {
		if i, ok := index[bucketStart(r.Hour, g)]; ok {
			out.Series[i].add(r)
			out.Totals.add(r)
		}
	}
	return out, nil
}
