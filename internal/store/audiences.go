package store

import (
	"context"
	"fmt"

	"github.com/carteiro/carteiro"
)

const audienceColumns = `id, org_id, name, description, active, contacts_count, created_at, updated_at`

func scanAudience(r row) (*carteiro.Audience, error) {
	var a carteiro.Audience
	var created, updated int64
	if err := r.Scan(&a.ID, &a.OrgID, &a.Name, &a.Description, &a.Active, &a.ContactsCount, &created, &updated); err != nil {
		return nil, err
	}
	a.CreatedAt, a.UpdatedAt = fromMicros(created), fromMicros(updated)
	return &a, nil
}

// CreateAudience inserts a.
func (q *Queries) CreateAudience(ctx context.Context, a *carteiro.Audience) error {
	_, err := q.exec(ctx, `INSERT INTO audiences (`+audienceColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		a.ID, a.OrgID, a.Name, a.Description, a.Active, a.ContactsCount, micros(a.CreatedAt), micros(a.UpdatedAt))
	if err != nil {
		return fmt.Errorf("store: create audience: %w", classify(err))
	}
	return nil
}

// Audience returns an audience of the organization.
func (q *Queries) Audience(ctx context.Context, orgID, id string) (*carteiro.Audience, error) {
	a, err := scanAudience(q.queryRow(ctx, `SELECT `+audienceColumns+` FROM audiences WHERE id = ? AND org_id = ?`, id, orgID))
	if err != nil {
		return nil, fmt.Errorf("store: audience %s: %w", id, classify(err))
	}
	return a, nil
}

// ListAudiences returns one page of the organization's audiences, oldest
// first, and how many there are.
func (q *Queries) ListAudiences(ctx context.Context, orgID string, limit, offset int) ([]*carteiro.Audience, int64, error) {
	var total int64
	if err := q.queryRow(ctx, `SELECT COUNT(*) FROM audiences WHERE org_id = ?`, orgID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count audiences: %w", classify(err))
	}
	rs, err := q.query(ctx, `SELECT `+audienceColumns+` FROM audiences WHERE org_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?`, orgID, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list audiences: %w", classify(err))
	}
	defer rs.Close()
	out := []*carteiro.Audience{}
	for rs.Next() {
		a, err := scanAudience(rs)
		if err != nil {
			return nil, 0, fmt.Errorf("store: list audiences: %w", classify(err))
		}
		out = append(out, a)
	}
	return out, total, rs.Err()
}

// UpdateAudience stores name, description, active and updated_at.
func (q *Queries) UpdateAudience(ctx context.Context, a *carteiro.Audience) error {
	n, err := q.exec(ctx, `UPDATE audiences SET name = ?, description = ?, active = ?, updated_at = ? WHERE id = ? AND org_id = ?`,
		a.Name, a.Description, a.Active, micros(a.UpdatedAt), a.ID, a.OrgID)
	if err != nil {
		return fmt.Errorf("store: update audience %s: %w", a.ID, classify(err))
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// DeleteAudience removes an audience and its contacts in one transaction.
// The audience goes first: its row lock waits for an import still writing
// into it, and the contacts deleted next include what that import
// committed (PostgreSQL has no foreign key to cascade, migration 0011).
func (s *Store) DeleteAudience(ctx context.Context, orgID, id string) error {
	return s.InTx(ctx, func(tx *Tx) error {
		n, err := tx.exec(ctx, `DELETE FROM audiences WHERE id = ? AND org_id = ?`, id, orgID)
		if err != nil {
			return fmt.Errorf("store: delete audience %s: %w", id, classify(err))
		}
		if n == 0 {
			return ErrNotFound
		}
		if _, err := tx.exec(ctx, `DELETE FROM contacts WHERE audience_id = ?`, id); err != nil {
			return fmt.Errorf("store: delete contacts of audience %s: %w", id, classify(err))
		}
		return nil
	})
}

// addContactsCount keeps contacts_count exact, in the transaction that
// inserted or deleted the contacts.
func (q *Queries) addContactsCount(ctx context.Context, audienceID string, delta int64) error {
	if delta == 0 {
		return nil
	}
	n, err := q.exec(ctx, `UPDATE audiences SET contacts_count = contacts_count + ? WHERE id = ?`, delta, audienceID)
	if err != nil {
		return fmt.Errorf("store: count contacts of %s: %w", audienceID, classify(err))
	}
	if n == 0 {
		// Deleted meanwhile: the contacts written must not stay behind it.
		return fmt.Errorf("store: count contacts of %s: %w", audienceID, ErrNotFound)
	}
	return nil
}
