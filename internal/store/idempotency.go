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

// DeleteIdempotencyKey forgets one expired key (kept 24 hours, D22), so
// that the request using it again is accepted anew. The other expired keys
// are left to the retention purge (D77), in small batches: deleting them
// all here would scan the table inside an accept's transaction.
func (q *Queries) DeleteIdempotencyKey(ctx context.Context, orgID, endpoint, key string) error {
	if _, err := q.exec(ctx, `DELETE FROM idempotency_keys WHERE org_id = ? AND endpoint = ? AND idem_key = ?`, orgID, endpoint, key); err != nil {
		return fmt.Errorf("store: expire idempotency key: %w", classify(err))
	}
	return nil
}
