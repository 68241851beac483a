package main

import (
	"testing"
	"time"
)

func TestAnalyseDedupesAndMeasuresTheWindow(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	w := window{From: at(10), To: at(20)}
	arrivals := []arrival{
		{Hook: 0, EventID: "e1", EmailID: "m1", Created: at(9.9), Arrived: at(10.1)},  // in the window, 200 ms
		{Hook: 1, EventID: "e1", EmailID: "m1", Created: at(9.9), Arrived: at(10.4)},  // other webhook: its own delivery
		{Hook: 0, EventID: "e1", EmailID: "m1", Created: at(9.9), Arrived: at(10.05)}, // duplicate, earlier: becomes the first
		{Hook: 0, EventID: "e2", EmailID: "m2", Created: at(19), Arrived: at(21)},     // recorded in, arrives after
		{Hook: 0, EventID: "e3", EmailID: "x", Created: at(1), Arrived: at(2)},        // warm-up, unknown email
	}
	known := func(id string) bool { return id == "m1" || id == "m2" }
	o := analyse(arrivals, w, known)
	if o.Unique != 4 || o.Duplicates != 1 || o.Strangers != 1 {
		t.Fatalf("unique %d duplicates %d strangers %d, want 4 1 1", o.Unique, o.Duplicates, o.Strangers)
	}
	if o.Delivered != 2 || o.Recorded != 1 {
		t.Fatalf("delivered %d recorded %d in the window, want 2 1", o.Delivered, o.Recorded)
	}
	want := []time.Duration{150 * time.Millisecond, 500 * time.Millisecond}
	if len(o.Latencies) != 2 || o.Latencies[0] != want[0] || o.Latencies[1] != want[1] {
		t.Fatalf("window latencies %v, want %v (the first arrival of a duplicate counts)", o.Latencies, want)
	}
	if len(o.LatenciesAll) != 4 || o.LatenciesAll[3] != 2*time.Second {
		t.Fatalf("whole-run latencies %v", o.LatenciesAll)
	}
}
