package store

import (
	"context"
	"fmt"
	"time"

	"github.com/carteiro/carteiro"
)

const keyColumns = `id, org_id, name, mode, permission, domain, key_hash, prefix, created_at, revoked_at, created_by, last_used_at`

func scanKey(r row) (*carteiro.APIKey, error) {
	var k carteiro.APIKey
	dest, finish := keyFields(&k)
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	finish()
	return &k, nil
}

// keyFields are the scan destinations of keyColumns for k, and the step
// that converts the scanned times once Scan has filled them.
func keyFields(k *carteiro.APIKey) (dest []any, finish func()) {
	var created int64
	var revoked, lastUsed *int64
	return []any{&k.ID, &k.OrgID, &k.Name, &k.Mode, &k.Permission, &k.Domain, &k.Hash, &k.Prefix, &created, &revoked, &k.CreatedBy, &lastUsed}, func() {
		k.CreatedAt = fromMicros(created)
		k.RevokedAt = fromMicrosPtr(revoked)
		k.LastUsedAt = fromMicrosPtr(lastUsed)
	}
}

// CreateAPIKey inserts k (only its hash, never the key itself).
func (q *Queries) CreateAPIKey(ctx context.Context, k *carteiro.APIKey) error {
	_, err := q.exec(ctx, `INSERT INTO api_keys (`+keyColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		k.ID, k.OrgID, k.Name, string(k.Mode), string(k.Permission), k.Domain, k.Hash, k.Prefix, micros(k.CreatedAt), microsPtr(k.RevokedAt), k.CreatedBy, microsPtr(k.LastUsedAt))
	if err != nil {
		return fmt.Errorf("store: create API key: %w", classify(err))
	}
	return nil
}

// KeyWithOrganization finds a key by the SHA-256 of its secret, revoked
// or not, with its organization: what every authenticated request needs,
// in one statement. On PostgreSQL concurrent callers share that statement
// (readbatch.go).
func (s *Store) KeyWithOrganization(ctx context.Context, hash string) (*carteiro.APIKey, *carteiro.Organization, error) {
	var found map[string]keyAndOrg
	var err error
	if s.keyReads != nil {
		found, err = s.keyReads.get(ctx, []string{hash})
	} else {
		found, err = s.keysWithOrganizations(ctx, []string{hash})
	}
	if err != nil {
		return nil, nil, err
	}
	ko, ok := found[hash]
	if !ok {
		return nil, nil, fmt.Errorf("store: API key by hash: %w", ErrNotFound)
	}
	return ko.key, ko.org, nil
}

type keyAndOrg struct {
	key *carteiro.APIKey
	org *carteiro.Organization
}

// keysWithOrganizations reads the keys whose hashes are among hashes, each
// with its organization, by hash.
func (q *Queries) keysWithOrganizations(ctx context.Context, hashes []string) (map[string]keyAndOrg, error) {
	args := make([]any, len(hashes))
	for i, h := range hashes {
		args[i] = h
	}
	rs, err := q.query(ctx, `SELECT `+qualified("k", keyColumns)+`, `+qualified("o", orgColumns)+`
		FROM api_keys k JOIN organizations o ON o.id = k.org_id WHERE k.key_hash IN (`+placeholders(len(hashes))+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: API keys by hash: %w", classify(err))
	}
	defer rs.Close()
	found := make(map[string]keyAndOrg, len(hashes))
	for rs.Next() {
		var k carteiro.APIKey
		var o carteiro.Organization
		keyDest, keyDone := keyFields(&k)
		orgDest, orgDone := orgFields(&o)
		if err := rs.Scan(append(keyDest, orgDest...)...); err != nil {
			return nil, fmt.Errorf("store: API keys by hash: %w", classify(err))
		}
		keyDone()
		orgDone()
		found[k.Hash] = keyAndOrg{&k, &o}
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("store: API keys by hash: %w", classify(err))
	}
	return found, nil
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

// TouchAPIKey records that a key was used at at, unless a use as recent
// is already recorded.
func (q *Queries) TouchAPIKey(ctx context.Context, id string, at time.Time) error {
	_, err := q.exec(ctx, `UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)`,
		micros(at), id, micros(at))
	if err != nil {
		return fmt.Errorf("store: touch API key %s: %w", id, classify(err))
	}
	return nil
}
