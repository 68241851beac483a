package app

import (
	"context"
	"time"
)

// batchPacer sizes and spaces the batches of background deletions (the
// retention purge, D77) so that accepts barely notice them. On SQLite every
// write, accepts included, goes through one writer; a batch holds it for
// as long as its statements run. The pacer grows batches whose statements
// finish well inside target and shrinks those that take longer, and after
// each batch rests as long as the whole batch took (reading included), so
// the purge works at most half the time and an accept waits for at most
// one batch's statements.
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

// rest paces a batch whose whole time held the database.
func (p *batchPacer) rest(ctx context.Context, took time.Duration) error {
	return p.restAfter(ctx, took, took)
}

// restAfter adapts the batch size to how long the last batch's statements
// held the writer (held), and waits as long as the whole batch took, or
// until ctx ends. The wait for a shared commit counts in took, not in
// held: accepts sharing that commit wait for it anyway (issue 31).
func (p *batchPacer) restAfter(ctx context.Context, held, took time.Duration) error {
	switch {
	case held < p.target/2 && p.size < maxPurgeBatch:
		p.size = min(maxPurgeBatch, p.size*2)
	case held > 2*p.target && p.size > minPurgeBatch:
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
