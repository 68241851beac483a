package main

import (
	"slices"
	"time"
)

// latencySummary is what the report shows of a set of request latencies.
type latencySummary struct {
	Count              int
	P50, P90, P99, Max time.Duration
}

// summarize sorts samples in place and returns their nearest-rank
// percentiles: the p-th percentile is the smallest sample that at least p %
// of the samples are less than or equal to, so p99 of 100 samples is the
// 99th smallest, never an interpolated value nobody measured.
func summarize(samples []time.Duration) latencySummary {
	if len(samples) == 0 {
		return latencySummary{}
	}
	slices.Sort(samples)
	return latencySummary{
		Count: len(samples),
		P50:   nearestRank(samples, 50),
		P90:   nearestRank(samples, 90),
		P99:   nearestRank(samples, 99),
		Max:   samples[len(samples)-1],
	}
}

// nearestRank returns the p-th percentile (0 < p <= 100) of sorted samples.
func nearestRank(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	// rank = ceil(p/100 * n), computed in integers to dodge float rounding
	// (0.99*100 is 98.99999...).
	rank := (int(p*1000)*n + 100*1000 - 1) / (100 * 1000)
	rank = max(1, min(rank, n))
	return sorted[rank-1]
}
