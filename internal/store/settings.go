package store

import (
	"context"
	"fmt"
)

// Setting returns the value kept under key, or ErrNotFound.
func (q *Queries) Setting(ctx context.Context, key string) (string, error) {
	var v string
	if err := q.queryRow(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v); err != nil {
		return "", fmt.Errorf("store: setting %s: %w", key, classify(err))
	}
	return v, nil
}

// SettingOrInit returns the value under key, storing value first when the
// key is new. Concurrent first starts agree on one value.
func (q *Queries) SettingOrInit(ctx context.Context, key, value string) (string, error) {
	if _, err := q.exec(ctx, `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`, key, value); err != nil {
		return "", fmt.Errorf("store: init setting %s: %w", key, classify(err))
	}
	var v string
	if err := q.queryRowWrite(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v); err != nil {
		return "", fmt.Errorf("store: setting %s: %w", key, classify(err))
	}
	return v, nil
}
