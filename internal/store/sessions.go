package store

import (
	"context"
	"fmt"
	"time"

	"github.com/carteiro/carteiro"
)

// CreateSession inserts s (the hash of its id, never the id).
func (q *Queries) CreateSession(ctx context.Context, s *carteiro.Session) error {
	_, err := q.exec(ctx, `INSERT INTO sessions (id_hash, user_id, org_id, csrf_token, created_at, last_seen_at)
		VALUES (?, ?, ?, ?, ?, ?)`, s.IDHash, s.UserID, s.OrgID, s.CSRFToken, micros(s.CreatedAt), micros(s.LastSeenAt))
	if err != nil {
		return fmt.Errorf("store: create session: %w", classify(err))
	}
	return nil
}

// SessionWithUser finds a session by the hash of its id, with its user.
func (q *Queries) SessionWithUser(ctx context.Context, idHash string) (*carteiro.Session, *carteiro.User, error) {
	var s carteiro.Session
	var u carteiro.User
	var sCreated, sSeen, uCreated int64
	err := q.queryRow(ctx, `SELECT s.id_hash, s.user_id, s.org_id, s.csrf_token, s.created_at, s.last_seen_at,
		`+qualified("u", userColumns)+` FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.id_hash = ?`, idHash).
		Scan(&s.IDHash, &s.UserID, &s.OrgID, &s.CSRFToken, &sCreated, &sSeen,
			&u.ID, &u.OrgID, &u.Email, &u.Role, &u.PasswordHash, &u.TOTPSecret, &u.TOTPPending, &u.Language, &uCreated)
	if err != nil {
		return nil, nil, fmt.Errorf("store: session: %w", classify(err))
	}
	s.CreatedAt, s.LastSeenAt, u.CreatedAt = fromMicros(sCreated), fromMicros(sSeen), fromMicros(uCreated)
	return &s, &u, nil
}

// TouchSession moves a session's last use to at.
func (q *Queries) TouchSession(ctx context.Context, idHash string, at time.Time) error {
	if _, err := q.exec(ctx, `UPDATE sessions SET last_seen_at = ? WHERE id_hash = ?`, micros(at), idHash); err != nil {
		return fmt.Errorf("store: touch session: %w", classify(err))
	}
	return nil
}

// DeleteSession ends one session.
func (q *Queries) DeleteSession(ctx context.Context, idHash string) error {
	if _, err := q.exec(ctx, `DELETE FROM sessions WHERE id_hash = ?`, idHash); err != nil {
		return fmt.Errorf("store: delete session: %w", classify(err))
	}
	return nil
}

// DeleteOtherSessions ends every session of a user but keep (a password
// change signs out the other browsers).
func (q *Queries) DeleteOtherSessions(ctx context.Context, userID, keep string) error {
	if _, err := q.exec(ctx, `DELETE FROM sessions WHERE user_id = ? AND id_hash <> ?`, userID, keep); err != nil {
		return fmt.Errorf("store: delete other sessions: %w", classify(err))
	}
	return nil
}

// CreateSetupToken stores the hash of a first start's setup token.
func (q *Queries) CreateSetupToken(ctx context.Context, orgID, tokenHash string, expires time.Time) error {
	if _, err := q.exec(ctx, `INSERT INTO setup_tokens (token_hash, org_id, expires_at) VALUES (?, ?, ?)`,
		tokenHash, orgID, micros(expires)); err != nil {
		return fmt.Errorf("store: create setup token: %w", classify(err))
	}
	return nil
}

// SetupTokenOrg returns the organization of a setup token still usable at now.
func (q *Queries) SetupTokenOrg(ctx context.Context, tokenHash string, now time.Time) (string, error) {
	var org string
	err := q.queryRow(ctx, `SELECT org_id FROM setup_tokens WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?`,
		tokenHash, micros(now)).Scan(&org)
	if err != nil {
		return "", fmt.Errorf("store: setup token: %w", classify(err))
	}
	return org, nil
}

// UseSetupToken marks a setup token used, once: false when it was used,
// expired or never existed. One conditional UPDATE, so two requests with
// the same token cannot both succeed.
func (q *Queries) UseSetupToken(ctx context.Context, tokenHash string, now time.Time) (bool, error) {
	n, err := q.exec(ctx, `UPDATE setup_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?`,
		micros(now), tokenHash, micros(now))
	if err != nil {
		return false, fmt.Errorf("store: use setup token: %w", classify(err))
	}
	return n == 1, nil
}

// AddAudit appends an entry to the audit log.
func (q *Queries) AddAudit(ctx context.Context, e *carteiro.AuditEntry) error {
	if _, err := q.exec(ctx, `INSERT INTO audit_log (id, org_id, at, actor, action, target) VALUES (?, ?, ?, ?, ?, ?)`,
		e.ID, e.OrgID, micros(e.At), e.Actor, e.Action, e.Target); err != nil {
		return fmt.Errorf("store: add audit entry: %w", classify(err))
	}
	return nil
}

// AuditKey is where a page of the audit log ends: the next page starts
// after it.
type AuditKey struct {
	At time.Time
	ID string
}

// ListAudit returns an organization's audit entries older than before
// (all when nil), newest first.
func (q *Queries) ListAudit(ctx context.Context, orgID string, before *AuditKey, limit int) ([]*carteiro.AuditEntry, error) {
	query := `SELECT id, org_id, at, actor, action, target FROM audit_log WHERE org_id = ?`
	args := []any{orgID}
	if before != nil {
		// A keyset page on (at, id), which audit_by_org (org_id, at)
		// serves: no OFFSET, however far back the page is.
		query += ` AND (at < ? OR (at = ? AND id < ?))`
		args = append(args, micros(before.At), micros(before.At), before.ID)
	}
	rs, err := q.query(ctx, query+` ORDER BY at DESC, id DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("store: list audit: %w", classify(err))
	}
	defer rs.Close()
	var out []*carteiro.AuditEntry
	for rs.Next() {
		var e carteiro.AuditEntry
		var at int64
		if err := rs.Scan(&e.ID, &e.OrgID, &at, &e.Actor, &e.Action, &e.Target); err != nil {
			return nil, fmt.Errorf("store: scan audit entry: %w", classify(err))
		}
		e.At = fromMicros(at)
		out = append(out, &e)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("store: list audit: %w", classify(err))
	}
	return out, nil
}
