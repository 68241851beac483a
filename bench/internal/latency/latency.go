// Package latency summarizes measured durations by nearest-rank
// percentiles, the same way in every benchmark so their tables compare.
package latency

import (
	"slices"
	"time"
)

// Summary is what a report shows of a set of request latencies.
type Summary struct {
	Count              int
	P50, P90, P99, Max time.Duration
}

// Summarize sorts samples in place and returns their nearest-rank
// percentiles: the p-th percentile is the smallest sample that at least p %
// of the samples are less than or equal to, so p99 of 100 samples is the
// 99th smallest, never an interpolated value nobody measured.
func Summarize(samples []time.Duration) Summary {
	if len(samples) == 0 {
		return Summary{}
	}
	slices.Sort(samples)
	return Summary{
		Count: len(samples),
		P50:   NearestRank(samples, 50),
		P90:   NearestRank(samples, 90),
		P99:   NearestRank(samples, 99),
		Max:   samples[len(samples)-1],
	}
}

// Percentile is NearestRank, or 0 when there are no samples.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return NearestRank(sorted, p)
}

// NearestRank returns the p-th percentile (0 < p <= 100) of sorted samples,
// which must not be empty.
func NearestRank(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	// rank = ceil(p/100 * n), computed in integers to dodge float rounding
	// (0.99*100 is 98.99999...).
	rank := (int(p*1000)*n + 100*1000 - 1) / (100 * 1000)
	rank = max(1, min(rank, n))
	return sorted[rank-1]
}

// SortedCopy returns ds sorted, leaving ds as it was.
func SortedCopy(ds []time.Duration) []time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s
}
