package store

import (
	"context"
	"fmt"
	"time"

	"github.com/carteiro/carteiro"
)

const keyColumns = `id, org_id, name, mode, permission, domain, key_hash, prefix, created_at, revoked_at`

func scanKey(r row) (*carteiro.APIKey, error) {
	var k carteiro.APIKey
	var created int64
	var revoked *int64
	if err := r.Scan(&k.ID, &k.OrgID, &k.Name, &k.Mode, &k.Permission, &k.Domain, &k.Hash, &k.Prefix, &created, &revoked); err != nil {
		return nil, err
	}
	k.CreatedAt = fromMicros(created)
	k.RevokedAt = fromMicrosPtr(revoked)
	return &k, nil
}

// CreateAPIKey inserts k (only its hash, never the key itself).
func (q *Queries) CreateAPIKey(ctx context.Context, k *carteiro.APIKey) error {
	_, err := q.exec(ctx, `INSERT INTO api_keys (`+keyColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		k.ID, k.OrgID, k.Name, string(k.Mode), string(k.Permission), k.Domain, k.Hash, k.Prefix, micros(k.CreatedAt), microsPtr(k.RevokedAt))
	if err != nil {
		return fmt.Errorf("store: create API key: %w", classify(err))
	}
	return nil
}

// APIKeyByHash finds a key by the SHA-256 of its secret, revoked or not.
func (q *Queries) APIKeyByHash(ctx context.Context, hash string) (*carteiro.APIKey, error) {
	k, err := scanKey(q.queryRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE key_hash = ?`, hash))
	if err != nil {
		return nil, fmt.Errorf("store: API key by hash: %w", classify(err))
	}
	return k, nil
}

// APIKey returns one key by id.
func (q *Queries) APIKey(ctx context.Context, id string) (*carteiro.APIKey, error) {
	k, err := scanKey(q.queryRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE id = ?`, id))
	if err != nil {
		return nil, fmt.Errorf("store: API key %s: %w", id, classify(err))
	}
	return k, nil
}

// ListAPIKeys returns the keys of an organization, oldest first.
func (q *Queries) ListAPIKeys(ctx context.Context, orgID string) ([]*carteiro.APIKey, error) {
	rs, err := q.query(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE org_id = ? ORDER BY created_at, id`, orgID)
	if err != nil {
		return nil, fmt.Errorf("store: list API keys: %w", classify(err))
	}
	defer rs.Close()
	var out []*carteiro.APIKey
	for rs.Next() {
		k, err := scanKey(rs)
		if err != nil {
			return nil, fmt.Errorf("store: scan API key: %w", classify(err))
		}
		out = append(out, k)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("store: list API keys: %w", classify(err))
	}
	return out, nil
}

// RevokeAPIKey marks a key revoked at the given time; revoking twice keeps
// the first time.
func (q *Queries) RevokeAPIKey(ctx context.Context, id string, at time.Time) error {
	n, err := q.exec(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`, micros(at), id)
	if err != nil {
		return fmt.Errorf("store: revoke API key %s: %w", id, classify(err))
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}
