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

// LockWarmupDay returns how many emails a domain has been counted for on
// day and holds that count's row until the transaction ends, so the caller
// can count more against the quota (AddWarmup) without another
// transaction taking the same room meanwhile. One statement: the no-op
// update both creates the day's row and locks it.
func (q *Queries) LockWarmupDay(ctx context.Context, domainID, day string) (int, error) {
	var sent int
	err := q.queryRow(ctx, `INSERT INTO warmup_counts (domain_id, day, sent) VALUES (?, ?, 0)
		ON CONFLICT (domain_id, day) DO UPDATE SET sent = warmup_counts.sent RETURNING sent`, domainID, day).Scan(&sent)
	if err != nil {
		return 0, fmt.Errorf("store: warmup count: %w", classify(err))
	}
	return sent, nil
}

// AddWarmup counts n more emails for the domain on day; the caller holds
// the row (LockWarmupDay) and has checked the quota.
func (q *Queries) AddWarmup(ctx context.Context, domainID, day string, n int) error {
	if _, err := q.exec(ctx, `UPDATE warmup_counts SET sent = sent + ? WHERE domain_id = ? AND day = ?`, n, domainID, day); err != nil {
		return fmt.Errorf("store: warmup count: %w", classify(err))
	}
	return nil
}
