package main

import (
	"context"
	"fmt"
	"time"

	"github.com/carteiro/carteiro/internal/store"
)

// history is the year written, and what the answers must add up to.
type history struct {
	Start, End time.Time // first day at 00:00 UTC; the day after the last
	OrgID      string
	DomainID   string
	Tag        string // the tag name the tag queries filter on
	Rows       int    // counter rows written
	Calls      int    // AddStats calls made
	Took       time.Duration
	// Totals per metric for all emails (tag "") and for Tag.
	TotalAll, TotalTag [7]int64
}

// metrics are D54's counters, in the order of the answer's fields.
var metrics = []store.StatsMetric{store.MetricSent, store.MetricDelivered, store.MetricFailed, store.MetricBounced,
	store.MetricComplained, store.MetricOpened, store.MetricClicked}

// seedTag is the tag every benchmark email carries; an event counts once
// under "" (all emails), once under the name and once under name:value,
// as app.countEvent does.
const (
	seedTagName  = "campaign"
	seedTagValue = "welcome"
)

// seed writes days of history ending at end (exclusive, a UTC midnight)
// through st's AddStats, one transaction per day, for hoursPerDay hours
// spread over each day; an hour's counts of every tag go in one call, as
// one delivery's do (app.countEvents). Counts vary by day, hour and metric so that
// a bucket summed wrongly shows in the totals.
func seed(ctx context.Context, st *store.Store, orgID, mode, domainID string, days, hoursPerDay int, end time.Time) (history, error) {
	h := history{Start: end.AddDate(0, 0, -days), End: end, OrgID: orgID, DomainID: domainID, Tag: seedTagName}
	tags := []string{"", seedTagName, seedTagName + ":" + seedTagValue}
	began := time.Now()
	for d := range days {
		day := h.Start.AddDate(0, 0, d)
		err := st.InTx(ctx, func(tx *store.Tx) error {
			for i := range hoursPerDay {
				hour := day.Add(time.Duration(i*24/hoursPerDay) * time.Hour)
				var adds []store.StatsAddition
				for ti, tag := range tags {
					add := store.StatsAddition{Key: store.StatsKey{OrgID: orgID, Mode: mode, DomainID: domainID, Tag: tag, Hour: hour},
						Counts: map[store.StatsMetric]int{}}
					for mi, m := range metrics {
						n := 1 + (d*7+i*3+mi)%40
						if ti > 0 {
							n = 1 + n/2 // tagged emails are a part of all emails
						}
						add.Counts[m] = n
						switch tag {
						case "":
							h.TotalAll[mi] += int64(n)
						case seedTagName:
							h.TotalTag[mi] += int64(n)
						}
					}
					adds = append(adds, add)
					h.Rows++
				}
				if err := tx.AddStats(ctx, adds...); err != nil {
					return err
				}
				h.Calls++
			}
			return nil
		})
		if err != nil {
			return h, fmt.Errorf("seed day %s: %w", day.Format(time.DateOnly), err)
		}
	}
	h.Took = time.Since(began)
	return h, nil
}

// want is the totals a query over the whole history must answer.
func (h history) want(q queryShape) [7]int64 {
	if q.ByTag {
		return h.TotalTag
	}
	return h.TotalAll
}
