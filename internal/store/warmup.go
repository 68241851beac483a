package store

import (
	"context"
	"fmt"
)

// WarmupSent returns how many emails a domain has been counted for on day
// (YYYY-MM-DD, UTC).
func (q *Queries) WarmupSent(ctx context.Context, domainID, day string) (int, error) {
	var n int
	err := q.queryRow(ctx, `SELECT sent FROM warmup_counts WHERE domain_id = ? AND day = ?`, domainID, day).Scan(&n)
	if isNoRows(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("store: warmup count: %w", classify(err))
	}
	return n, nil
}

// LastWarmupDay returns the most recent day a domain sent on, or "".
func (q *Queries) LastWarmupDay(ctx context.Context, domainID string) (string, error) {
	var day *string
	if err := q.queryRow(ctx, `SELECT MAX(day) FROM warmup_counts WHERE domain_id = ?`, domainID).Scan(&day); err != nil {
		return "", fmt.Errorf("store: warmup last day: %w", classify(err))
	}
	return deref(day), nil
}

// TakeWarmup counts n more emails for the domain on day if that keeps the
// day's total within quota, and reports whether it did. It runs in the
// transaction that accepts the emails, so the count and the emails commit
// together.
func (q *Queries) TakeWarmup(ctx context.Context, domainID, day string, n, quota int) (bool, error) {
	if n > quota {
		return false, nil
	}
	if _, err := q.exec(ctx, `INSERT INTO warmup_counts (domain_id, day, sent) VALUES (?, ?, 0) ON CONFLICT (domain_id, day) DO NOTHING`, domainID, day); err != nil {
		return false, fmt.Errorf("store: warmup count: %w", classify(err))
	}
	updated, err := q.exec(ctx, `UPDATE warmup_counts SET sent = sent + ? WHERE domain_id = ? AND day = ? AND sent + ? <= ?`, n, domainID, day, n, quota)
	if err != nil {
		return false, fmt.Errorf("store: warmup count: %w", classify(err))
	}
	return updated == 1, nil
}
