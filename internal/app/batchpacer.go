package app

import (
	"context"
	"time"
)

// batchPacer sizes and spaces the batches of background deletions (the
// retention purge, D77) so that accepts barely notice them. On SQLite every
// write, accepts included, goes through one writer; a batch holds it for
// the time it takes. The pacer grows batches that finish well inside
// target and shrinks those that take longer, and after each batch rests as
// long as the batch took, so the purge has the writer at most half the
// time and an accept waits for at most one batch.
type batchPacer struct {
	size   int
	target time.Duration
}

const (
	minPurgeBatch = 10
	maxPurgeBatch = 500
	// purgeBatchTarget is how long a batch should take: a few
	// milliseconds, about what a shared commit of accepts takes.
	purgeBatchTarget = 5 * time.Millisecond
)

func newBatchPacer() *batchPacer {
	return &batchPacer{size: 100, target: purgeBatchTarget}
}

// rest adapts the batch size to how long the last batch took and waits
// as long, or until ctx ends.
func (p *batchPacer) rest(ctx context.Context, took time.Duration) error {
	switch {
	case took < p.target/2 && p.size < maxPurgeBatch:
		p.size = min(maxPurgeBatch, p.size*2)
	case took > 2*p.target && p.size > minPurgeBatch:
		p.size = max(minPurgeBatch, p.size/2)
	}
	t := time.NewTimer(max(took, time.Millisecond))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
