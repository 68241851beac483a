package main

import (
	"math"
	"testing"
	"time"
)

func TestSteadyRateSkipsRampAndTail(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	points := []deliveryPoint{
		{at(0), 0}, {at(5), 0}, // slow start: nothing for 5 s
		{at(6), 100}, {at(7), 200}, {at(8), 300}, {at(9), 400}, {at(10), 500},
		{at(11), 600}, {at(12), 700}, {at(13), 800}, {at(14), 900},
		{at(30), 1000}, // long tail
	}
	got := steadyRate(points, 1000)
	if math.Abs(got-100) > 1e-9 {
		t.Fatalf("steadyRate = %v, want 100/s (from 100 at 6 s to 900 at 14 s)", got)
	}
	if r := steadyRate(points[:2], 0); r != 0 {
		t.Fatalf("steadyRate with nothing delivered = %v, want 0", r)
	}
}
