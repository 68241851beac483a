package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/carteiro/carteiro"
)

const suppressionColumns = `id, org_id, email, reason, source, category, status, expires_at, created_at, updated_at`

func scanSuppression(r row) (*carteiro.Suppression, error) {
	var s carteiro.Suppression
	var expires *int64
	var created, updated int64
	if err := r.Scan(&s.ID, &s.OrgID, &s.Email, &s.Reason, &s.Source, &s.Category, &s.Status, &expires, &created, &updated); err != nil {
		return nil, err
	}
	s.ExpiresAt, s.CreatedAt, s.UpdatedAt = fromMicrosPtr(expires), fromMicros(created), fromMicros(updated)
	return &s, nil
}

// ExpireSuppressions marks active suppressions past their expiresAt as
// expired, for one address and category or, with email "", all of them.
func (q *Queries) ExpireSuppressions(ctx context.Context, orgID, email, category string, now time.Time) error {
	query := `UPDATE suppressions SET status = 'expired', updated_at = ? WHERE status = 'active' AND expires_at IS NOT NULL AND expires_at <= ?`
	args := []any{micros(now), micros(now)}
	if email != "" {
		query += ` AND org_id = ? AND email = ? AND category = ?`
		args = append(args, orgID, email, category)
	}
	if _, err := q.exec(ctx, query, args...); err != nil {
		return fmt.Errorf("store: expire suppressions: %w", classify(err))
	}
	return nil
}

// ActiveSuppression returns the active suppression of an address and
// category, or ErrNotFound.
func (q *Queries) ActiveSuppression(ctx context.Context, orgID, email, category string, now time.Time) (*carteiro.Suppression, error) {
	s, err := scanSuppression(q.queryRow(ctx, `SELECT `+suppressionColumns+` FROM suppressions
		WHERE org_id = ? AND email = ? AND category = ? AND status = 'active' AND (expires_at IS NULL OR expires_at > ?)`,
		orgID, email, category, micros(now)))
	if err != nil {
		return nil, fmt.Errorf("store: suppression %s: %w", email, classify(err))
	}
	return s, nil
}

// CreateSuppression inserts s; a second active one for the same address and
// category is ErrConflict.
func (q *Queries) CreateSuppression(ctx context.Context, s *carteiro.Suppression) error {
	_, err := q.exec(ctx, `INSERT INTO suppressions (`+suppressionColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		s.ID, s.OrgID, s.Email, s.Reason, s.Source, s.Category, s.Status, microsPtr(s.ExpiresAt), micros(s.CreatedAt), micros(s.UpdatedAt))
	if err != nil {
		return fmt.Errorf("store: create suppression: %w", classify(err))
	}
	return nil
}

// Suppression returns one suppression of the organization.
func (q *Queries) Suppression(ctx context.Context, orgID, id string) (*carteiro.Suppression, error) {
	s, err := scanSuppression(q.queryRow(ctx, `SELECT `+suppressionColumns+` FROM suppressions WHERE id = ? AND org_id = ?`, id, orgID))
	if err != nil {
		return nil, fmt.Errorf("store: suppression %s: %w", id, classify(err))
	}
	return s, nil
}

// SetSuppressionStatus changes a suppression's status.
func (q *Queries) SetSuppressionStatus(ctx context.Context, orgID, id, status string, now time.Time) error {
	n, err := q.exec(ctx, `UPDATE suppressions SET status = ?, updated_at = ? WHERE id = ? AND org_id = ?`, status, micros(now), id, orgID)
	if err != nil {
		return fmt.Errorf("store: update suppression %s: %w", id, classify(err))
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// DeleteSuppression removes one for good.
func (q *Queries) DeleteSuppression(ctx context.Context, orgID, id string) error {
	n, err := q.exec(ctx, `DELETE FROM suppressions WHERE id = ? AND org_id = ?`, id, orgID)
	if err != nil {
		return fmt.Errorf("store: delete suppression %s: %w", id, classify(err))
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// SuppressedAmong returns which of emails have an active suppression in one
// of categories at now (checked at the hand-off to SMTP, D23).
func (q *Queries) SuppressedAmong(ctx context.Context, orgID string, emails, categories []string, now time.Time) (map[string]bool, error) {
	if len(emails) == 0 {
		return map[string]bool{}, nil
	}
	query, args := suppressedAmongQuery(orgID, emails, categories, now)
	rs, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: suppressed: %w", classify(err))
	}
	defer rs.Close()
	return scanSuppressed(rs)
}

// suppressedAmongQuery is SuppressedAmong's statement, with ? placeholders.
func suppressedAmongQuery(orgID string, emails, categories []string, now time.Time) (string, []any) {
	args := []any{orgID, micros(now)}
	for _, c := range categories {
		args = append(args, c)
	}
	for _, e := range emails {
		args = append(args, strings.ToLower(e))
	}
	return `SELECT email FROM suppressions WHERE org_id = ? AND status = 'active' AND (expires_at IS NULL OR expires_at > ?)
		AND category IN (` + placeholders(len(categories)) + `) AND email IN (` + placeholders(len(emails)) + `)`, args
}

func scanSuppressed(rs keyRows) (map[string]bool, error) {
	out := map[string]bool{}
	for rs.Next() {
		var e string
		if err := rs.Scan(&e); err != nil {
			return nil, fmt.Errorf("store: suppressed: %w", classify(err))
		}
		out[e] = true
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("store: suppressed: %w", classify(err))
	}
	return out, nil
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// SuppressionFilter selects GET /suppressions (D44).
type SuppressionFilter struct {
	OrgID, Status, Reason, Email string
	After                        *time.Time
	Limit                        int
	Now                          time.Time
}

// ListSuppressions returns a page, newest first, with the D27 cursor.
func (q *Queries) ListSuppressions(ctx context.Context, f SuppressionFilter) ([]*carteiro.Suppression, *time.Time, error) {
	conds := []string{"org_id = ?"}
	args := []any{f.OrgID}
	switch f.Status {
	case "active":
		conds = append(conds, "status = 'active' AND (expires_at IS NULL OR expires_at > ?)")
		args = append(args, micros(f.Now))
	case "expired":
		conds = append(conds, "(status = 'expired' OR (status = 'active' AND expires_at IS NOT NULL AND expires_at <= ?))")
		args = append(args, micros(f.Now))
	case "inactive":
		conds = append(conds, "status = 'inactive'")
	}
	if f.Reason != "" {
		conds = append(conds, "reason = ?")
		args = append(args, f.Reason)
	}
	if f.Email != "" {
		conds = append(conds, `email LIKE ? ESCAPE '\'`)
		args = append(args, "%"+likeEscape(strings.ToLower(f.Email))+"%")
	}
	return suppressionList.page(ctx, q, strings.Join(conds, " AND "), args, f.After, f.Limit)
}

var suppressionList = listQuery[*carteiro.Suppression]{what: "suppressions", selectFrom: `SELECT ` + suppressionColumns + ` FROM suppressions`,
	createdCol: "created_at", scan: scanSuppression, createdAt: func(s *carteiro.Suppression) time.Time { return s.CreatedAt }}
