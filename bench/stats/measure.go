package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/carteiro/carteiro/bench/internal/apiclient"
	"github.com/carteiro/carteiro/bench/internal/latency"
	"github.com/carteiro/carteiro/bench/internal/machine"
)

// statsAnswer is the part of GET /stats' answer that is checked (D54).
type statsAnswer struct {
	Granularity string          `json:"granularity"`
	Totals      json.RawMessage `json:"totals"`
	Series      []struct {
		Date string `json:"date"`
	} `json:"series"`
}

type counts struct {
	Sent, Delivered, Failed, Bounced, Complained, Opened, Clicked int64
}

func (c counts) array() [7]int64 {
	return [7]int64{c.Sent, c.Delivered, c.Failed, c.Bounced, c.Complained, c.Opened, c.Clicked}
}

// check asks q once and compares the answer with what seed wrote: every
// bucket present and the totals equal to the sums written. It returns the
// answer's size in bytes and how long it took: the first answer of a query
// reads every day from the database, later ones read the settled days from
// the service's memory (docs/architecture.md, "Statistics counters").
func check(ctx context.Context, api *apiclient.Client, key string, h history, q queryShape) (int, time.Duration, error) {
	began := time.Now()
	status, body, err := api.Do(ctx, http.MethodGet, q.path(h), key, nil)
	took := time.Since(began)
	if err != nil {
		return 0, took, err
	}
	if status != http.StatusOK {
		return 0, took, fmt.Errorf("status %d: %.300s", status, body)
	}
	var a statsAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return 0, took, fmt.Errorf("decode: %w", err)
	}
	var totals counts
	if err := json.Unmarshal(a.Totals, &totals); err != nil {
		return 0, took, fmt.Errorf("decode totals: %w", err)
	}
	if want := q.buckets(h); len(a.Series) != want || a.Granularity != q.Granularity {
		return 0, took, fmt.Errorf("%d %s buckets, want %d", len(a.Series), a.Granularity, want)
	}
	if got, want := totals.array(), h.want(q); got != want {
		return 0, took, fmt.Errorf("totals %v, want %v", got, want)
	}
	return len(body), took, nil
}

// result is one query's timing.
type result struct {
	Name      string
	Buckets   int
	Bytes     int
	Requests  int
	Errors    int
	FirstErr  error
	Seconds   float64
	First     time.Duration   // the first answer's time, alone (check)
	CPU       time.Duration   // this process's CPU time over the measured part
	Busy      float64         // share of the machine's cores busy then, -1 if unknown
	Latencies []time.Duration // sorted
}

// measure runs path from clients concurrent clients for warmup, then for
// duration, keeping the latency of requests started in the second part.
func measure(ctx context.Context, api *apiclient.Client, key, path string, clients int, warmup, duration time.Duration) result {
	start := time.Now()
	from, until := start.Add(warmup), start.Add(warmup+duration)
	var mu sync.Mutex
	var r result
	var wg sync.WaitGroup
	type sample struct {
		cpu   time.Duration
		ticks machine.CPU
		err   error
	}
	cpuAt := make(chan sample, 1)
	go func() { // sample CPU when the measured part begins
		select {
		case <-time.After(time.Until(from)):
		case <-ctx.Done():
		}
		ticks, err := machine.ReadCPU()
		cpuAt <- sample{machine.SelfCPU(), ticks, err}
	}()
	for range clients {
		wg.Go(func() {
			var mine []time.Duration
			var errs int
			var firstErr error
			for ctx.Err() == nil {
				began := time.Now()
				if !began.Before(until) {
					break
				}
				status, body, err := api.Do(ctx, http.MethodGet, path, key, nil)
				took := time.Since(began)
				if err == nil && status != http.StatusOK {
					err = fmt.Errorf("status %d: %.200s", status, body)
				}
				if began.Before(from) {
					continue
				}
				if err != nil {
					errs++
					if firstErr == nil {
						firstErr = err
					}
					continue
				}
				mine = append(mine, took)
			}
			mu.Lock()
			defer mu.Unlock()
			r.Latencies = append(r.Latencies, mine...)
			r.Errors += errs
			if r.FirstErr == nil {
				r.FirstErr = firstErr
			}
		})
	}
	wg.Wait()
	first := <-cpuAt
	r.CPU = machine.SelfCPU() - first.cpu
	ticks, err := machine.ReadCPU()
	r.Busy = machine.BusyFraction(first.ticks, ticks, first.err, err)
	r.Seconds = time.Since(from).Seconds()
	r.Requests = len(r.Latencies) + r.Errors
	r.Latencies = latency.SortedCopy(r.Latencies)
	return r
}
