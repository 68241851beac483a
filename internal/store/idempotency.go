package store

import (
	"context"
	"fmt"
	"time"

	"github.com/carteiro/carteiro"
)

// IdempotencyRecord is a stored answer to a request made with an
// idempotency key (D22), scoped by organization, mode, endpoint and key
// (D62).
type IdempotencyRecord struct {
	OrgID          string
	Mode           carteiro.Mode
	Endpoint       string
	Key            string
	RequestHash    string
	ResponseStatus int
	ResponseBody   string
	CreatedAt      time.Time
}

// Idempotency returns the record for a key of the organization's mode, or
// ErrNotFound: a test key never sees a live key's record or the reverse
// (D62).
func (q *Queries) Idempotency(ctx context.Context, orgID string, mode carteiro.Mode, endpoint, key string) (*IdempotencyRecord, error) {
	r := IdempotencyRecord{OrgID: orgID, Mode: mode, Endpoint: endpoint, Key: key}
	var created int64
	err := q.queryRow(ctx, `SELECT request_hash, response_status, response_body, created_at FROM idempotency_keys
		WHERE org_id = ? AND mode = ? AND endpoint = ? AND idem_key = ?`, orgID, string(mode), endpoint, key).Scan(&r.RequestHash, &r.ResponseStatus, &r.ResponseBody, &created)
	if err != nil {
		return nil, fmt.Errorf("store: idempotency key: %w", classify(err))
	}
	r.CreatedAt = fromMicros(created)
	return &r, nil
}

// InsertIdempotency stores a record; a concurrent twin is ErrConflict.
func (q *Queries) InsertIdempotency(ctx context.Context, r *IdempotencyRecord) error {
	_, err := q.exec(ctx, `INSERT INTO idempotency_keys (org_id, mode, endpoint, idem_key, request_hash, response_status, response_body, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, r.OrgID, string(r.Mode), r.Endpoint, r.Key, r.RequestHash, r.ResponseStatus, r.ResponseBody, micros(r.CreatedAt))
	if err != nil {
		return fmt.Errorf("store: insert idempotency key: %w", classify(err))
	}
	return nil
}

// DeleteIdempotencyBefore forgets keys older than t (kept 24 hours, D22).
func (q *Queries) DeleteIdempotencyBefore(ctx context.Context, t time.Time) (int64, error) {
	n, err := q.exec(ctx, `DELETE FROM idempotency_keys WHERE created_at < ?`, micros(t))
	if err != nil {
		return 0, fmt.Errorf("store: expire idempotency keys: %w", classify(err))
	}
	return n, nil
}
