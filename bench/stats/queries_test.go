package main

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestBucketsCoverTheRangeLikeD54(t *testing.T) {
	t.Parallel()
	// 2025-11-24 is a Monday; 365 days end on 2026-11-23 (a Monday too).
	h := history{Start: time.Date(2025, 11, 24, 0, 0, 0, 0, time.UTC), End: time.Date(2025, 11, 24, 0, 0, 0, 0, time.UTC).AddDate(0, 0, 365)}
	for _, c := range []struct {
		name string
		want int
	}{{"day", 365}, {"week", 53}, {"month", 13}, {"hour", 365 * 24}} {
		if got := queryShapes[c.name].buckets(h); got != c.want {
			t.Errorf("%s: %d buckets, want %d", c.name, got, c.want)
		}
	}
}

func TestQueryPathCarriesTheFilters(t *testing.T) {
	t.Parallel()
	h := history{Start: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), DomainID: "d1", Tag: "campaign"}
	p := queryShapes["day+domain+tag"].path(h)
	u, err := url.Parse(p)
	if err != nil || !strings.HasPrefix(p, "/v1/product/stats?") {
		t.Fatalf("path %q: %v", p, err)
	}
	q := u.Query()
	if q.Get("startDate") != "2025-01-01T00:00:00Z" || q.Get("endDate") != "2025-12-31T23:59:59Z" || q.Get("granularity") != "day" ||
		q.Get("domainId") != "d1" || q.Get("tag") != "campaign" {
		t.Fatalf("query %v", q)
	}
	if q := queryShapes["month"].path(h); strings.Contains(q, "domainId") || strings.Contains(q, "tag=") {
		t.Fatalf("unfiltered query has filters: %s", q)
	}
}
