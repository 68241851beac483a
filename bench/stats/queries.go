package main

import (
	"net/url"
	"slices"
	"time"
)

// queryShape is one GET /stats query of the benchmark.
type queryShape struct {
	Granularity string
	ByDomain    bool
	ByTag       bool
}

// queryShapes are the queries the benchmark knows, by name.
var queryShapes = map[string]queryShape{
	"day":            {Granularity: "day"},
	"week":           {Granularity: "week"},
	"month":          {Granularity: "month"},
	"hour":           {Granularity: "hour"},
	"day+domain":     {Granularity: "day", ByDomain: true},
	"day+tag":        {Granularity: "day", ByTag: true},
	"day+domain+tag": {Granularity: "day", ByDomain: true, ByTag: true},
}

// defaultQueries are the target's query (a year of days) and its variants.
var defaultQueries = []string{"day", "week", "month", "day+domain", "day+tag", "day+domain+tag"}

func knownQueries() []string {
	names := make([]string, 0, len(queryShapes))
	for n := range queryShapes {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// path is the request for shape over h's whole range.
func (q queryShape) path(h history) string {
	v := url.Values{"startDate": {h.Start.Format(time.RFC3339)}, "endDate": {h.End.Add(-time.Second).Format(time.RFC3339)},
		"granularity": {q.Granularity}}
	if q.ByDomain {
		v.Set("domainId", h.DomainID)
	}
	if q.ByTag {
		v.Set("tag", h.Tag)
	}
	return "/v1/product/stats?" + v.Encode()
}

// buckets is how many buckets the answer must have over h's range (UTC;
// weeks start on Monday, D54).
func (q queryShape) buckets(h history) int {
	last := h.End.Add(-time.Second)
	n := 0
	for b := bucketOf(h.Start, q.Granularity); !b.After(last); b = nextBucket(b, q.Granularity) {
		n++
	}
	return n
}

func bucketOf(t time.Time, g string) time.Time {
	t = t.UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	switch g {
	case "hour":
		return t.Truncate(time.Hour)
	case "week":
		return day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
	case "month":
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	return day
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
