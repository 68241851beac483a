package main

import (
	"testing"
	"time"
)

func TestPercentileIsNearestRank(t *testing.T) {
	t.Parallel()
	var ds []time.Duration
	for i := 100; i >= 1; i-- { // 100 ms .. 1 ms, unsorted on purpose
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	s := sortedCopy(ds)
	if ds[0] != 100*time.Millisecond {
		t.Fatalf("sortedCopy changed its input")
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{50, 50 * time.Millisecond}, {99, 99 * time.Millisecond}, {100, 100 * time.Millisecond}, {0.1, time.Millisecond}} {
		if got := percentile(s, c.p); got != c.want {
			t.Errorf("p%v = %v, want %v", c.p, got, c.want)
		}
	}
	if got := percentile(nil, 99); got != 0 {
		t.Errorf("p99 of nothing = %v, want 0", got)
	}
	if got := percentile([]time.Duration{7}, 99); got != 7 {
		t.Errorf("p99 of one = %v, want it", got)
	}
}
