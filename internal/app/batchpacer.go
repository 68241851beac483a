package app

import (
	"context"
	"time"
)

// batchPacer sizes and spaces the batches of background deletions (the
// retention purge, D77) so that accepts barely notice them. On SQLite every
// write, accepts included, goes through one writer; a batch holds it for
// the time it takes. The pacer grows batches that finish well inside
// target and shrinks those that take longer, and after each batch rests
// purgeRestFactor times as long as the batch took, so the purge has the
// writer at most a quarter of the time and an accept waits for at most one
// batch.
//
// Why a quarter and not half: under a steady accept load the accepts'
// latency grows with the share of the writer the purge takes (the clients
// wait on one another behind it). With half (a rest as long as the batch)
// the accept p99 during a purge of 100,000 emails was 2.75× (SQLite) and
// 3.4× (PostgreSQL) the p99 without it on a quiet machine, above D77's
// "accepts barely notice" (issue 31: at most 2×); see docs/benchmarks.md.
// The cost is a slower pass under load, which the next hourly pass resumes.
type batchPacer struct {
	size   int
	target time.Duration
	// wait sleeps for d or until ctx ends; a field so tests can see the
	// rests without sleeping.
	wait func(ctx context.Context, d time.Duration) error
}

const (
	minPurgeBatch = 10
	maxPurgeBatch = 500
	// purgeBatchTarget is how long a batch should take: a few
	// milliseconds, about what a shared commit of accepts takes.
	purgeBatchTarget = 5 * time.Millisecond
	// purgeRestFactor is the rest after a batch, in multiples of the
	// batch's time: 3 leaves the writer to everything else three quarters
	// of the time.
	purgeRestFactor = 3
)

func newBatchPacer() *batchPacer {
	return &batchPacer{size: 100, target: purgeBatchTarget, wait: sleepCtx}
}

// rest adapts the batch size to how long the last batch took and waits
// purgeRestFactor times as long, or until ctx ends.
func (p *batchPacer) rest(ctx context.Context, took time.Duration) error {
	switch {
	case took < p.target/2 && p.size < maxPurgeBatch:
		p.size = min(maxPurgeBatch, p.size*2)
	case took > 2*p.target && p.size > minPurgeBatch:
		p.size = max(minPurgeBatch, p.size/2)
	}
	return p.wait(ctx, max(purgeRestFactor*took, time.Millisecond))
}

// sleepCtx waits for d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
