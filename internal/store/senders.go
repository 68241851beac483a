package store

import (
	"context"
	"fmt"
	"time"

	"github.com/carteiro/carteiro"
)

const senderColumns = `id, org_id, email, display_name, token_hash, token_expires_at, token_used_at, verified_at, active, created_at`

func scanSender(r row) (*carteiro.Sender, error) {
	var s carteiro.Sender
	var name *string
	var expires, created int64
	var used, verified *int64
	if err := r.Scan(&s.ID, &s.OrgID, &s.Email, &name, &s.TokenHash, &expires, &used, &verified, &s.Active, &created); err != nil {
		return nil, err
	}
	s.DisplayName = deref(name)
	s.TokenExpiresAt, s.CreatedAt = fromMicros(expires), fromMicros(created)
	s.TokenUsedAt, s.VerifiedAt = fromMicrosPtr(used), fromMicrosPtr(verified)
	return &s, nil
}

// CreateSender inserts s; the same email twice in an organization is
// ErrConflict.
func (q *Queries) CreateSender(ctx context.Context, s *carteiro.Sender) error {
	_, err := q.exec(ctx, `INSERT INTO senders (`+senderColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		s.ID, s.OrgID, s.Email, nullString(s.DisplayName), s.TokenHash, micros(s.TokenExpiresAt), microsPtr(s.TokenUsedAt),
		microsPtr(s.VerifiedAt), s.Active, micros(s.CreatedAt))
	if err != nil {
		return fmt.Errorf("store: create sender: %w", classify(err))
	}
	return nil
}

// SenderByEmail returns the organization's sender with that address.
func (q *Queries) SenderByEmail(ctx context.Context, orgID, email string) (*carteiro.Sender, error) {
	s, err := scanSender(q.queryRow(ctx, `SELECT `+senderColumns+` FROM senders WHERE org_id = ? AND email = ?`, orgID, email))
	if err != nil {
		return nil, fmt.Errorf("store: sender %s: %w", email, classify(err))
	}
	return s, nil
}

// SenderByTokenHash finds the sender a verification token belongs to.
func (q *Queries) SenderByTokenHash(ctx context.Context, orgID, hash string) (*carteiro.Sender, error) {
	s, err := scanSender(q.queryRow(ctx, `SELECT `+senderColumns+` FROM senders WHERE org_id = ? AND token_hash = ?`, orgID, hash))
	if err != nil {
		return nil, fmt.Errorf("store: sender by token: %w", classify(err))
	}
	return s, nil
}

// SenderByToken finds the sender a verification token belongs to, whatever
// its organization: the emailed link carries no API key (D59).
func (q *Queries) SenderByToken(ctx context.Context, hash string) (*carteiro.Sender, error) {
	s, err := scanSender(q.queryRow(ctx, `SELECT `+senderColumns+` FROM senders WHERE token_hash = ?`, hash))
	if err != nil {
		return nil, fmt.Errorf("store: sender by token: %w", classify(err))
	}
	return s, nil
}

// ListSenders returns the organization's senders, newest first.
func (q *Queries) ListSenders(ctx context.Context, orgID string) ([]*carteiro.Sender, error) {
	rs, err := q.query(ctx, `SELECT `+senderColumns+` FROM senders WHERE org_id = ? ORDER BY created_at DESC, id DESC`, orgID)
	if err != nil {
		return nil, fmt.Errorf("store: list senders: %w", classify(err))
	}
	defer rs.Close()
	var out []*carteiro.Sender
	for rs.Next() {
		s, err := scanSender(rs)
		if err != nil {
			return nil, fmt.Errorf("store: list senders: %w", classify(err))
		}
		out = append(out, s)
	}
	return out, rs.Err()
}

// VerifySender marks the token used and the sender verified, once: a
// second use of the token changes nothing and reports false.
func (q *Queries) VerifySender(ctx context.Context, id string, at time.Time) (bool, error) {
	n, err := q.exec(ctx, `UPDATE senders SET verified_at = ?, token_used_at = ? WHERE id = ? AND token_used_at IS NULL`, micros(at), micros(at), id)
	if err != nil {
		return false, fmt.Errorf("store: verify sender %s: %w", id, classify(err))
	}
	return n == 1, nil
}

// DeleteSender removes a sender for good (4.9).
func (q *Queries) DeleteSender(ctx context.Context, orgID, id string) error {
	n, err := q.exec(ctx, `DELETE FROM senders WHERE id = ? AND org_id = ?`, id, orgID)
	if err != nil {
		return fmt.Errorf("store: delete sender %s: %w", id, classify(err))
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// SenderByID returns a sender whatever its organization (workers).
func (q *Queries) SenderByID(ctx context.Context, id string) (*carteiro.Sender, error) {
	s, err := scanSender(q.queryRow(ctx, `SELECT `+senderColumns+` FROM senders WHERE id = ?`, id))
	if err != nil {
		return nil, fmt.Errorf("store: sender %s: %w", id, classify(err))
	}
	return s, nil
}
