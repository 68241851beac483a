package store

import (
	"context"
	"fmt"

	"github.com/carteiro/carteiro"
)

const orgColumns = `id, name, password_hash, totp_secret, created_at`

func scanOrg(r row) (*carteiro.Organization, error) {
	var o carteiro.Organization
	dest, finish := orgFields(&o)
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	finish()
	return &o, nil
}

// orgFields are the scan destinations of orgColumns for o, and the step
// that converts the scanned time once Scan has filled them.
func orgFields(o *carteiro.Organization) (dest []any, finish func()) {
	var created int64
	return []any{&o.ID, &o.Name, &o.PasswordHash, &o.TOTPSecret, &created}, func() { o.CreatedAt = fromMicros(created) }
}

// CreateOrganization inserts o.
func (q *Queries) CreateOrganization(ctx context.Context, o *carteiro.Organization) error {
	_, err := q.exec(ctx, `INSERT INTO organizations (`+orgColumns+`) VALUES (?, ?, ?, ?, ?)`,
		o.ID, o.Name, o.PasswordHash, o.TOTPSecret, micros(o.CreatedAt))
	if err != nil {
		return fmt.Errorf("store: create organization: %w", classify(err))
	}
	return nil
}

// Organization returns one organization by id.
func (q *Queries) Organization(ctx context.Context, id string) (*carteiro.Organization, error) {
	o, err := scanOrg(q.queryRow(ctx, `SELECT `+orgColumns+` FROM organizations WHERE id = ?`, id))
	if err != nil {
		return nil, fmt.Errorf("store: organization %s: %w", id, classify(err))
	}
	return o, nil
}

// CountOrganizations tells whether the database is new (D4's bootstrap).
func (q *Queries) CountOrganizations(ctx context.Context) (int, error) {
	var n int
	if err := q.queryRowWrite(ctx, `SELECT COUNT(*) FROM organizations`).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count organizations: %w", classify(err))
	}
	return n, nil
}

// SetOrganizationReauth stores the password hash and sealed TOTP secret (D8).
func (q *Queries) SetOrganizationReauth(ctx context.Context, id, passwordHash, totpSecret string) error {
	n, err := q.exec(ctx, `UPDATE organizations SET password_hash = ?, totp_secret = ? WHERE id = ?`, passwordHash, totpSecret, id)
	if err != nil {
		return fmt.Errorf("store: update organization %s: %w", id, classify(err))
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// ListOrganizations returns every organization, oldest first
// (`carteiro org list`). An install holds few, so there is no paging.
func (q *Queries) ListOrganizations(ctx context.Context) ([]*carteiro.Organization, error) {
	rs, err := q.query(ctx, `SELECT `+orgColumns+` FROM organizations ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("store: list organizations: %w", classify(err))
	}
	defer rs.Close()
	var out []*carteiro.Organization
	for rs.Next() {
		o, err := scanOrg(rs)
		if err != nil {
			return nil, fmt.Errorf("store: list organizations: %w", classify(err))
		}
		out = append(out, o)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("store: list organizations: %w", classify(err))
	}
	return out, nil
}
