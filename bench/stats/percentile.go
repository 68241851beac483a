package main

import (
	"slices"
	"time"
)

// percentile is the nearest-rank p-th percentile (0 < p <= 100) of sorted
// durations, or 0 when there are none.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(p/100*float64(len(sorted))+0.999999999) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

// sortedCopy returns ds sorted, leaving ds as it was.
func sortedCopy(ds []time.Duration) []time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s
}
