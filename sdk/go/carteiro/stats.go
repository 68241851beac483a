package carteiro

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// StatsService reads the aggregated counters (api-v1.md 4.8, D54).
type StatsService struct{ c *Client }

// StatsParams selects the range and buckets of GET /stats.
type StatsParams struct {
	StartDate, EndDate time.Time
	// Granularity is hour, day (the default), week or month.
	Granularity string
	DomainID    string
	// Tag is "name" or "name:value".
	Tag string
}

// StatsCounts are the counters of a range or bucket.
type StatsCounts struct {
	Sent       int `json:"sent"`
	Delivered  int `json:"delivered"`
	Failed     int `json:"failed"`
	Bounced    int `json:"bounced"`
	Complained int `json:"complained"`
	Opened     int `json:"opened"`
	Clicked    int `json:"clicked"`
}

// StatsBucket is one hour, day, week or month of counters.
type StatsBucket struct {
	Date time.Time `json:"date"`
	StatsCounts
}

// Stats is the answer of GET /stats.
type Stats struct {
	StartDate   time.Time     `json:"startDate"`
	EndDate     time.Time     `json:"endDate"`
	Granularity string        `json:"granularity"`
	Totals      StatsCounts   `json:"totals"`
	Series      []StatsBucket `json:"series"`
}

// Get is GET /stats.
func (s *StatsService) Get(ctx context.Context, p *StatsParams) (*Stats, error) {
	q := url.Values{}
	if p != nil {
		setTime(q, "startDate", p.StartDate)
		setTime(q, "endDate", p.EndDate)
		setString(q, "granularity", p.Granularity)
		setString(q, "domainId", p.DomainID)
		setString(q, "tag", p.Tag)
	}
	var out Stats
	err := s.c.do(ctx, call{method: http.MethodGet, path: "/stats", query: q, idempotent: true}, &out)
	return result(&out, err)
}
