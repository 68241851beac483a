package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// BroadcastChunk is a range of an audience's contacts that one fan-out job
// hands over in one transaction: the contacts after After, up to and
// including Upto.
type BroadcastChunk struct {
	BroadcastID string
	Seq         int64
	After, Upto ContactKey
}

// ChunkBounds splits the contacts of an audience after the position after
// into runs of size, in walking order, and returns the last contact of
// each run (the last run may be shorter) and how many contacts there are.
// One index-only pass numbers them; no contact row is read.
func (q *Queries) ChunkBounds(ctx context.Context, audienceID string, after ContactKey, size int) ([]ContactKey, int64, error) {
	rs, err := q.query(ctx, `SELECT created_at, id, n FROM (
		SELECT created_at, id, ROW_NUMBER() OVER (ORDER BY created_at, id) AS n, COUNT(*) OVER () AS total
		FROM contacts WHERE audience_id = ? AND (created_at, id) > (?, ?)) AS numbered
		WHERE n % ? = 0 OR n = total ORDER BY n`, audienceID, after.CreatedAt, after.ID, size)
	if err != nil {
		return nil, 0, fmt.Errorf("store: chunk bounds of %s: %w", audienceID, classify(err))
	}
	defer rs.Close()
	var bounds []ContactKey
	var total int64
	for rs.Next() {
		var k ContactKey
		if err := rs.Scan(&k.CreatedAt, &k.ID, &total); err != nil {
			return nil, 0, fmt.Errorf("store: chunk bounds of %s: %w", audienceID, classify(err))
		}
		bounds = append(bounds, k)
	}
	if err := rs.Err(); err != nil {
		return nil, 0, fmt.Errorf("store: chunk bounds of %s: %w", audienceID, classify(err))
	}
	return bounds, total, nil
}

// InsertBroadcastChunks stores chunks, many rows per statement.
func (q *Queries) InsertBroadcastChunks(ctx context.Context, chunks []BroadcastChunk) error {
	const perStatement = 500 // 6 parameters a row, well under SQLite's 32,766
	for len(chunks) > 0 {
		n := min(len(chunks), perStatement)
		var b strings.Builder
		b.WriteString(`INSERT INTO broadcast_chunks (broadcast_id, seq, after_created_at, after_id, upto_created_at, upto_id) VALUES `)
		args := make([]any, 0, 6*n)
		for i, c := range chunks[:n] {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(?, ?, ?, ?, ?, ?)")
			args = append(args, c.BroadcastID, c.Seq, c.After.CreatedAt, c.After.ID, c.Upto.CreatedAt, c.Upto.ID)
		}
		if _, err := q.exec(ctx, b.String(), args...); err != nil {
			return fmt.Errorf("store: insert broadcast chunks: %w", classify(err))
		}
		chunks = chunks[n:]
	}
	return nil
}

// BroadcastChunk returns a chunk; ErrNotFound when it is gone (handed
// over already).
func (q *Queries) BroadcastChunk(ctx context.Context, broadcastID string, seq int64) (*BroadcastChunk, error) {
	return scanChunk(q.queryRow(ctx, `SELECT `+chunkRange+` FROM broadcast_chunks WHERE broadcast_id = ? AND seq = ?`, broadcastID, seq),
		broadcastID, seq)
}

// TakeBroadcastChunk is BroadcastChunk holding the chunk's row until the
// transaction ends.
func (q *Queries) TakeBroadcastChunk(ctx context.Context, broadcastID string, seq int64) (*BroadcastChunk, error) {
	return scanChunk(q.queryRowWrite(ctx, `UPDATE broadcast_chunks SET seq = seq WHERE broadcast_id = ? AND seq = ? RETURNING `+chunkRange,
		broadcastID, seq), broadcastID, seq)
}

const chunkRange = `after_created_at, after_id, upto_created_at, upto_id`

func scanChunk(r row, broadcastID string, seq int64) (*BroadcastChunk, error) {
	c := BroadcastChunk{BroadcastID: broadcastID, Seq: seq}
	if err := r.Scan(&c.After.CreatedAt, &c.After.ID, &c.Upto.CreatedAt, &c.Upto.ID); err != nil {
		return nil, fmt.Errorf("store: broadcast %s chunk %d: %w", broadcastID, seq, classify(err))
	}
	return &c, nil
}

// MoveBroadcastChunk stores a chunk's new start, after a pause.
func (q *Queries) MoveBroadcastChunk(ctx context.Context, c *BroadcastChunk) error {
	_, err := q.exec(ctx, `UPDATE broadcast_chunks SET after_created_at = ?, after_id = ? WHERE broadcast_id = ? AND seq = ?`,
		c.After.CreatedAt, c.After.ID, c.BroadcastID, c.Seq)
	if err != nil {
		return fmt.Errorf("store: move broadcast %s chunk %d: %w", c.BroadcastID, c.Seq, classify(err))
	}
	return nil
}

// DeleteBroadcastChunk removes a chunk that is handed over or dropped.
func (q *Queries) DeleteBroadcastChunk(ctx context.Context, broadcastID string, seq int64) error {
	if _, err := q.exec(ctx, `DELETE FROM broadcast_chunks WHERE broadcast_id = ? AND seq = ?`, broadcastID, seq); err != nil {
		return fmt.Errorf("store: delete broadcast %s chunk %d: %w", broadcastID, seq, classify(err))
	}
	return nil
}

// BroadcastProgress is what one chunk's transaction adds to its broadcast.
type BroadcastProgress struct {
	Queued, Failed int64
	// ChunkDone is set when the chunk is handed over entirely (not paused).
	ChunkDone bool
	At        time.Time
}

// AddBroadcastProgress adds p to a sending broadcast's counters and
// returns how many chunks are still pending; ErrNotFound when the
// broadcast is no longer sending (cancelled or failed meanwhile). The
// update takes the broadcast's row at the end of the chunk's transaction,
// so parallel chunks queue only for their commits, and a cancel either
// commits first (this finds it) or waits for this commit (and then
// cancels the chunk's queued emails).
func (q *Queries) AddBroadcastProgress(ctx context.Context, broadcastID string, p BroadcastProgress) (int64, error) {
	done := 0
	if p.ChunkDone {
		done = 1
	}
	var pending int64
	err := q.queryRowWrite(ctx, `UPDATE broadcasts SET recipients_queued = recipients_queued + ?, recipients_failed = recipients_failed + ?,
		chunks_pending = chunks_pending - ?, updated_at = ? WHERE id = ? AND status = 'sending' RETURNING chunks_pending`,
		p.Queued, p.Failed, done, micros(p.At), broadcastID).Scan(&pending)
	if err != nil {
		return 0, fmt.Errorf("store: broadcast %s progress: %w", broadcastID, classify(err))
	}
	return pending, nil
}

// FinishBroadcast marks a sending broadcast sent (D43): its total becomes
// the contacts actually walked, whatever the audience did meanwhile.
func (q *Queries) FinishBroadcast(ctx context.Context, broadcastID string, at time.Time) error {
	return q.endBroadcast(ctx, broadcastID, `status = 'sent', sent_at = ?, recipients_total = recipients_queued + recipients_failed, updated_at = ?`, at)
}

// FailBroadcast marks a sending broadcast failed (D43), leaving its
// counters as the chunks left them.
func (q *Queries) FailBroadcast(ctx context.Context, broadcastID string, at time.Time) error {
	return q.endBroadcast(ctx, broadcastID, `status = 'failed', updated_at = ?`, at)
}

// endBroadcast applies set, whose placeholders all take at, to a sending
// broadcast; a broadcast in another status is left alone.
func (q *Queries) endBroadcast(ctx context.Context, broadcastID, set string, at time.Time) error {
	args := make([]any, strings.Count(set, "?"), strings.Count(set, "?")+1)
	for i := range args {
		args[i] = micros(at)
	}
	_, err := q.exec(ctx, `UPDATE broadcasts SET `+set+` WHERE id = ? AND status = 'sending'`, append(args, broadcastID)...)
	if err != nil {
		return fmt.Errorf("store: end broadcast %s: %w", broadcastID, classify(err))
	}
	return nil
}
