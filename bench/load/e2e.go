package main

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// e2eResult is what the end-to-end scenario measured.
type e2eResult struct {
	submit      *tally
	firstAccept time.Time     // first batch answered 202
	lastAccept  time.Time     // last batch answered
	submitted   time.Duration // from the first call to the last answer
	delivered   int64         // messages the sink counted
	lastDeliver time.Time     // when the sink counted its last message
	complete    bool          // every accepted email reached the sink in time
	steadyRate  float64       // delivered/s between 10 % and 90 % of the total
}

// deliveryPoint is the sink's count at one moment.
type deliveryPoint struct {
	at    time.Time
	count int64
}

// runE2E submits emails in batches of batchSize from clients, then waits (at most
// timeout after the first accept) until the sink has counted every
// accepted email, sampling the sink's count every 250 ms.
func runE2E(ctx context.Context, clients, emails, batchSize int, timeout time.Duration, api *apiClient, sk *sink) e2eResult {
	var res e2eResult
	var firstAccept atomic.Int64
	var accepted atomic.Int64
	submitted := make(chan struct{})
	var points []deliveryPoint
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		points = sampleDeliveries(ctx, sk, &accepted, &firstAccept, submitted, timeout)
	}()

	start := time.Now()
	var next atomic.Int64
	perClient := make([]*tally, clients)
	var wg sync.WaitGroup
	for i := range clients {
		perClient[i] = newTally()
		wg.Go(func() {
			for ctx.Err() == nil {
				first := next.Add(int64(batchSize)) - int64(batchSize)
				if first >= int64(emails) {
					return
				}
				size := int(min(int64(batchSize), int64(emails)-first))
				began := time.Now()
				o := postBatch(ctx, api, first, size)
				done := time.Now()
				if o.accepted > 0 {
					firstAccept.CompareAndSwap(0, done.UnixNano())
					accepted.Add(int64(o.accepted))
				}
				perClient[i].add(o, done.Sub(began))
			}
		})
	}
	wg.Wait()
	res.lastAccept = time.Now()
	res.submitted = res.lastAccept.Sub(start)
	close(submitted)
	<-sampled

	res.submit = newTally()
	for _, t := range perClient {
		res.submit.merge(t)
	}
	if fa := firstAccept.Load(); fa != 0 {
		res.firstAccept = time.Unix(0, fa)
	}
	res.delivered = sk.Count()
	res.lastDeliver = time.Unix(0, sk.lastSeen.Load())
	res.complete = res.submit.accepted > 0 && res.delivered >= res.submit.accepted
	res.steadyRate = steadyRate(points, res.delivered)
	return res
}

// sampleDeliveries records the sink's count every 250 ms until submission
// is over and the sink has every accepted email, the timeout after the
// first accept passes, or ctx ends.
func sampleDeliveries(ctx context.Context, sk *sink, accepted, firstAccept *atomic.Int64, submitted <-chan struct{}, timeout time.Duration) []deliveryPoint {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	hardStop := time.Now().Add(timeout + time.Hour) // replaced once the first accept is known
	var points []deliveryPoint
	done := false
	for {
		now := time.Now()
		n := sk.Count()
		points = append(points, deliveryPoint{now, n})
		select {
		case <-submitted:
			done = true
		default:
		}
		if fa := firstAccept.Load(); fa != 0 {
			hardStop = time.Unix(0, fa).Add(timeout)
		}
		if done && n >= accepted.Load() || now.After(hardStop) {
			return points
		}
		select {
		case <-ctx.Done():
			return points
		case <-tick.C:
		}
	}
}

// steadyRate is the delivery rate between the moments the sink passed 10 %
// and 90 % of total, leaving out the ramp at the start (connections,
// first polls) and the tail at the end.
func steadyRate(points []deliveryPoint, total int64) float64 {
	if total <= 0 {
		return 0
	}
	low, high := total/10, total*9/10
	var from, to *deliveryPoint
	for i := range points {
		p := &points[i]
		if from == nil && p.count >= low {
			from = p
		}
		if p.count >= high {
			to = p
			break
		}
	}
	if from == nil || to == nil || !to.at.After(from.at) {
		return 0
	}
	return float64(to.count-from.count) / to.at.Sub(from.at).Seconds()
}
