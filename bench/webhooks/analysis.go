package main

import (
	"time"

	"github.com/carteiro/carteiro/bench/internal/latency"
)

// window is the measured part of a run.
type window struct{ From, To time.Time }

// Seconds is the window's length.
func (w window) Seconds() float64 { return w.To.Sub(w.From).Seconds() }

func (w window) contains(t time.Time) bool { return !t.Before(w.From) && t.Before(w.To) }

// outcome is what the arrivals say about a run.
type outcome struct {
	Unique     int // distinct (webhook, event) pairs that arrived
	Duplicates int // arrivals of a pair already seen
	Strangers  int // arrivals naming an email the API never accepted
	// In the window: first arrivals, and deliveries whose event was
	// recorded (createdAt) in it.
	Delivered, Recorded int
	// Latency of first arrivals in the window: arrival - createdAt.
	Latencies []time.Duration // sorted
	// LatenciesAll is the same over the whole run, drain included.
	LatenciesAll []time.Duration // sorted
}

// analyse dedupes arrivals by (webhook, event id), keeping the first, and
// measures the window.
func analyse(arrivals []arrival, w window, known func(emailID string) bool) outcome {
	type key struct {
		hook int
		id   string
	}
	first := make(map[key]arrival, len(arrivals))
	var o outcome
	for _, a := range arrivals {
		k := key{a.Hook, a.EventID}
		if prev, seen := first[k]; seen {
			o.Duplicates++
			if a.Arrived.Before(prev.Arrived) {
				first[k] = a
			}
			continue
		}
		first[k] = a
	}
	var lat, all []time.Duration
	for _, a := range first {
		if !known(a.EmailID) {
			o.Strangers++
		}
		d := a.Arrived.Sub(a.Created)
		all = append(all, d)
		if w.contains(a.Arrived) {
			o.Delivered++
			lat = append(lat, d)
		}
		if w.contains(a.Created) {
			o.Recorded++
		}
	}
	o.Unique = len(first)
	o.Latencies, o.LatenciesAll = latency.SortedCopy(lat), latency.SortedCopy(all)
	return o
}
