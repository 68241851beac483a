package app

import (
	"context"
	"errors"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// fanOutChunk is how many contacts one chunk of a broadcast's fan-out
// holds: one job hands them over in one transaction with their emails and
// delivery jobs. 1,000 handed contacts over faster than 500
// (docs/benchmarks-campaigns.md), and a chunk still takes a fraction of a
// second.
const fanOutChunk = 1000

// FanOutJob splits a sending broadcast's contacts into chunks, one
// FanOutChunkJob each, which run in parallel: chunks handed over in
// parallel took a fraction of the time of one after another
// (docs/benchmarks-campaigns.md).
type FanOutJob struct {
	BroadcastID string `json:"broadcastId"`
}

// Kind names the job.
func (FanOutJob) Kind() string { return "broadcast_fan_out" }

// FanOutChunkJob hands one chunk of a broadcast's contacts over.
type FanOutChunkJob struct {
	BroadcastID string `json:"broadcastId"`
	Seq         int64  `json:"seq"`
}

// Kind names the job.
func (FanOutChunkJob) Kind() string { return "broadcast_fan_out_chunk" }

// FanOut is the worker side of FanOutJob (D43). The chunks, their jobs,
// the total and the pending count are written in one transaction with the
// broadcast's row held, and a broadcast with chunks pending is planned
// already: a job that runs again after a crash plans nothing twice.
func (a *App) FanOut(ctx context.Context, id string) error {
	return a.store.InTx(ctx, func(tx *store.Tx) error {
		b, err := tx.LockSendingBroadcast(ctx, id)
		if errors.Is(err, store.ErrNotFound) || (err == nil && b.ChunksPending > 0) {
			return nil // cancelled, done, or planned already
		}
		if err != nil {
			return err
		}
		now := a.clock.Now()
		after := store.ContactKey{CreatedAt: b.CursorCreatedAt, ID: b.CursorID}
		bounds, count, err := tx.ChunkBounds(ctx, b.AudienceID, after, fanOutChunk)
		if err != nil {
			return err
		}
		b.UpdatedAt = now
		if len(bounds) == 0 {
			// No contact to hand over (D43).
			b.Status, b.SentAt = carteiro.BroadcastSent, &now
			b.RecipientsTotal = b.RecipientsQueued + b.RecipientsFailed
			_, err = tx.SetBroadcastStatus(ctx, b, carteiro.BroadcastSending)
			return err
		}
		chunks := make([]store.BroadcastChunk, len(bounds))
		jobs := make([]Job, len(bounds))
		for i, upto := range bounds {
			chunks[i] = store.BroadcastChunk{BroadcastID: b.ID, Seq: int64(i + 1), After: after, Upto: upto}
			jobs[i] = FanOutChunkJob{BroadcastID: b.ID, Seq: int64(i + 1)}
			after = upto
		}
		if err := tx.InsertBroadcastChunks(ctx, chunks); err != nil {
			return err
		}
		if err := a.queue.EnqueueManyTx(ctx, tx, jobs, JobOpts{Queue: BroadcastQueue}); err != nil {
			return err
		}
		// The total is now exact: the contacts walked so far and the ones
		// just split into chunks.
		b.RecipientsTotal = b.RecipientsQueued + b.RecipientsFailed + count
		b.ChunksPending = int64(len(chunks))
		b.CursorCreatedAt, b.CursorID = after.CreatedAt, after.ID
		_, err = tx.SetBroadcastStatus(ctx, b, carteiro.BroadcastSending)
		return err
	})
}

// errBroadcastStopped rolls back a chunk whose broadcast was cancelled or
// failed while it ran.
var errBroadcastStopped = errors.New("broadcast stopped during the chunk")

// errChunkMoved rolls back a chunk whose range changed between its
// preparation and its transaction (a pause written by another run of its
// job): it is prepared again.
var errChunkMoved = errors.New("broadcast chunk moved")

// FanOutChunk is the worker side of FanOutChunkJob (D42, D43, D45). The
// chunk's emails are rendered before its transaction, which then checks
// suppressions and the warmup quota, writes the emails, their events and
// delivery jobs, adds to the broadcast's counters and deletes the chunk's
// row: a crash repeats at most a chunk that did not commit, which created
// nothing.
func (a *App) FanOutChunk(ctx context.Context, id string, seq int64) error {
	for range 3 {
		h, err := a.prepareChunk(ctx, id, seq)
		if err != nil || h == nil {
			return err
		}
		err = a.store.InTx(ctx, func(tx *store.Tx) error { return a.handOverChunk(ctx, tx, h) })
		if !errors.Is(err, errBroadcastStopped) && !errors.Is(err, errChunkMoved) {
			return err
		}
		// Everything the chunk did is rolled back; the next round finds
		// the broadcast stopped and drops the chunk, or renders its new
		// range.
	}
	return errChunkMoved
}

// prepareChunk reads a chunk's contacts and renders their emails outside
// any transaction: a thousand renders take tens of milliseconds of CPU
// that neither SQLite's single writer nor PostgreSQL's row locks need to
// wait for. nil when there is nothing left to hand over.
func (a *App) prepareChunk(ctx context.Context, id string, seq int64) (*handover, error) {
	chunk, err := a.store.BroadcastChunk(ctx, id, seq)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil // handed over already
	}
	if err != nil {
		return nil, err
	}
	b, err := a.store.BroadcastByID(ctx, id)
	if err != nil {
		return nil, err
	}
	now := a.clock.Now()
	if b.Status != carteiro.BroadcastSending {
		return nil, a.store.DeleteBroadcastChunk(ctx, id, seq)
	}
	src, domainID, err := a.broadcastSending(ctx, b)
	if broadcastCannotGoOn(err) {
		// The template was deleted or deactivated, or the sending domain
		// is gone: nothing more can be rendered; the broadcast fails (D43).
		return nil, a.store.InTx(ctx, func(tx *store.Tx) error {
			if err := tx.FailBroadcast(ctx, id, now); err != nil {
				return err
			}
			return tx.DeleteBroadcastChunk(ctx, id, seq)
		})
	}
	if err != nil {
		return nil, err
	}
	contacts, err := a.store.ContactsInRange(ctx, b.AudienceID, chunk.After, chunk.Upto)
	if err != nil {
		return nil, err
	}
	h := &handover{a: a, b: b, chunk: chunk, domainID: domainID, now: now}
	if err := h.render(ctx, src, contacts); err != nil {
		return nil, err
	}
	return h, nil
}

// handOverChunk writes a prepared chunk, or as much of it as the domain's
// warmup quota allows today.
func (a *App) handOverChunk(ctx context.Context, tx *store.Tx, h *handover) error {
	id, seq := h.b.ID, h.chunk.Seq
	chunk, err := tx.TakeBroadcastChunk(ctx, id, seq)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil // handed over meanwhile
	case err != nil:
		return err
	case chunk.After != h.chunk.After:
		return errChunkMoved
	}
	if err := h.write(ctx, tx); err != nil {
		return err
	}
	progress := store.BroadcastProgress{Queued: int64(len(h.deliveries)), Failed: h.failed, ChunkDone: h.resumeAt == nil, At: h.now}
	pending, err := tx.AddBroadcastProgress(ctx, id, progress)
	if errors.Is(err, store.ErrNotFound) {
		return errBroadcastStopped
	}
	if err == nil {
		err = h.recordFailures(ctx, tx)
	}
	switch {
	case err != nil:
		return err
	case h.resumeAt != nil:
		// Paused at the domain's warmup quota: the chunk resumes after
		// its last contact handed over tomorrow (D34).
		chunk.After = h.last
		if err := tx.MoveBroadcastChunk(ctx, chunk); err != nil {
			return err
		}
		return a.queue.EnqueueTx(ctx, tx, FanOutChunkJob{BroadcastID: id, Seq: seq}, JobOpts{ScheduledAt: *h.resumeAt, Queue: BroadcastQueue})
	}
	if err := tx.DeleteBroadcastChunk(ctx, id, seq); err != nil {
		return err
	}
	if pending == 0 {
		// Every recipient is handed to the queue (D43).
		return tx.FinishBroadcast(ctx, id, h.now)
	}
	return nil
}

// broadcastCannotGoOn tells an error of broadcastSending that no retry
// can cure (a template or domain gone) from one of the database.
func broadcastCannotGoOn(err error) bool {
	var ce *carteiro.Error
	return errors.As(err, &ce) && ce.Code != carteiro.CodeInternal && ce.Code != carteiro.CodeServiceUnavailable
}

// broadcastSending is what every recipient's email of b is made from: its
// source and, in live mode, the sending domain. A *carteiro.Error means
// the broadcast cannot go on.
func (a *App) broadcastSending(ctx context.Context, b *carteiro.Broadcast) (carteiro.TemplateSource, string, error) {
	src, err := a.broadcastSource(ctx, b)
	if err != nil || b.Mode != carteiro.ModeLive {
		return src, "", err
	}
	domainID, err := a.senderDomain(ctx, b.OrgID, b.From.Email)
	return src, domainID, err
}
