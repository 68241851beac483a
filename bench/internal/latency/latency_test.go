package latency

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestNearestRankOnOneToHundred(t *testing.T) {
	t.Parallel()
	samples := make([]time.Duration, 100)
	for i := range samples {
		samples[i] = time.Duration(100-i) * time.Millisecond // reversed: Summarize must sort
	}
	rand.Shuffle(len(samples), func(i, j int) { samples[i], samples[j] = samples[j], samples[i] })
	s := Summarize(samples)
	want := Summary{Count: 100, P50: 50 * time.Millisecond, P90: 90 * time.Millisecond, P99: 99 * time.Millisecond, Max: 100 * time.Millisecond}
	if s != want {
		t.Fatalf("Summarize(1..100 ms) = %+v, want %+v", s, want)
	}
}

func TestNearestRankSmallSets(t *testing.T) {
	t.Parallel()
	cases := []struct {
		n    int
		p    float64
		want int // 1-based rank
	}{
		{1, 50, 1}, {1, 99, 1},
		{2, 50, 1}, {2, 90, 2},
		{10, 99, 10}, {10, 90, 9}, {10, 50, 5},
		{1000, 99, 990}, {1001, 99, 991}, {3, 100, 3},
		{100, 0.1, 1},
	}
	for _, c := range cases {
		sorted := make([]time.Duration, c.n)
		for i := range sorted {
			sorted[i] = time.Duration(i + 1)
		}
		if got := NearestRank(sorted, c.p); got != time.Duration(c.want) {
			t.Errorf("NearestRank(n=%d, p=%v) = rank %d, want %d", c.n, c.p, got, c.want)
		}
	}
}

func TestEmptySets(t *testing.T) {
	t.Parallel()
	if s := Summarize(nil); s != (Summary{}) {
		t.Fatalf("Summarize(nil) = %+v, want zero", s)
	}
	if got := Percentile(nil, 99); got != 0 {
		t.Errorf("p99 of nothing = %v, want 0", got)
	}
}

func TestSortedCopyLeavesItsInput(t *testing.T) {
	t.Parallel()
	ds := []time.Duration{3, 1, 2}
	if s := SortedCopy(ds); s[0] != 1 || s[2] != 3 || ds[0] != 3 {
		t.Fatalf("SortedCopy(%v) = %v", ds, s)
	}
}
