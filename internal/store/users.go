package store

import (
	"context"
	"fmt"

	"github.com/carteiro/carteiro"
)

const userColumns = `id, org_id, email, role, password_hash, totp_secret, totp_pending, language, created_at`

func scanUser(r row) (*carteiro.User, error) {
	var u carteiro.User
	var created int64
	if err := r.Scan(&u.ID, &u.OrgID, &u.Email, &u.Role, &u.PasswordHash, &u.TOTPSecret, &u.TOTPPending, &u.Language, &created); err != nil {
		return nil, err
	}
	u.CreatedAt = fromMicros(created)
	return &u, nil
}

// CreateUser inserts u; an email already taken is ErrConflict.
func (q *Queries) CreateUser(ctx context.Context, u *carteiro.User) error {
	_, err := q.exec(ctx, `INSERT INTO users (`+userColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		u.ID, u.OrgID, u.Email, string(u.Role), u.PasswordHash, u.TOTPSecret, u.TOTPPending, u.Language, micros(u.CreatedAt))
	if err != nil {
		return fmt.Errorf("store: create user: %w", classify(err))
	}
	return nil
}

// User returns one user of an organization by id.
func (q *Queries) User(ctx context.Context, orgID, id string) (*carteiro.User, error) {
	u, err := scanUser(q.queryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = ? AND org_id = ?`, id, orgID))
	if err != nil {
		return nil, fmt.Errorf("store: user %s: %w", id, classify(err))
	}
	return u, nil
}

// UserByEmail finds the user who signs in with email.
func (q *Queries) UserByEmail(ctx context.Context, email string) (*carteiro.User, error) {
	u, err := scanUser(q.queryRow(ctx, `SELECT `+userColumns+` FROM users WHERE email = ?`, email))
	if err != nil {
		return nil, fmt.Errorf("store: user by email: %w", classify(err))
	}
	return u, nil
}

// ListUsers returns an organization's users, oldest first.
func (q *Queries) ListUsers(ctx context.Context, orgID string) ([]*carteiro.User, error) {
	rs, err := q.query(ctx, `SELECT `+userColumns+` FROM users WHERE org_id = ? ORDER BY created_at, id`, orgID)
	if err != nil {
		return nil, fmt.Errorf("store: list users: %w", classify(err))
	}
	defer rs.Close()
	var out []*carteiro.User
	for rs.Next() {
		u, err := scanUser(rs)
		if err != nil {
			return nil, fmt.Errorf("store: scan user: %w", classify(err))
		}
		out = append(out, u)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("store: list users: %w", classify(err))
	}
	return out, nil
}

// CountOwners counts an organization's owners (the last one stays).
func (q *Queries) CountOwners(ctx context.Context, orgID string) (int, error) {
	var n int
	if err := q.queryRowWrite(ctx, `SELECT COUNT(*) FROM users WHERE org_id = ? AND role = ?`, orgID, string(carteiro.RoleOwner)).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count owners: %w", classify(err))
	}
	return n, nil
}

// UpdateUser writes u's role, password, TOTP secrets and language.
func (q *Queries) UpdateUser(ctx context.Context, u *carteiro.User) error {
	n, err := q.exec(ctx, `UPDATE users SET role = ?, password_hash = ?, totp_secret = ?, totp_pending = ?, language = ?
		WHERE id = ? AND org_id = ?`, string(u.Role), u.PasswordHash, u.TOTPSecret, u.TOTPPending, u.Language, u.ID, u.OrgID)
	if err != nil {
		return fmt.Errorf("store: update user %s: %w", u.ID, classify(err))
	}
	if n == 0 {
		return fmt.Errorf("store: update user %s: %w", u.ID, ErrNotFound)
	}
	return nil
}

// DeleteUser removes a user; its sessions go with it.
func (q *Queries) DeleteUser(ctx context.Context, orgID, id string) error {
	if _, err := q.exec(ctx, `DELETE FROM sessions WHERE user_id = ?`, id); err != nil {
		return fmt.Errorf("store: delete sessions of %s: %w", id, classify(err))
	}
	n, err := q.exec(ctx, `DELETE FROM users WHERE id = ? AND org_id = ?`, id, orgID)
	if err != nil {
		return fmt.Errorf("store: delete user %s: %w", id, classify(err))
	}
	if n == 0 {
		return fmt.Errorf("store: delete user %s: %w", id, ErrNotFound)
	}
	return nil
}

// ClaimUserTOTPStep is ClaimTOTPStep for a user's own TOTP (D63's rule):
// a code's time step is accepted once.
func (q *Queries) ClaimUserTOTPStep(ctx context.Context, userID string, step int64) (bool, error) {
	n, err := q.exec(ctx, `UPDATE users SET totp_last_step = ?
		WHERE id = ? AND (totp_last_step IS NULL OR totp_last_step < ?)`, step, userID, step)
	if err != nil {
		return false, fmt.Errorf("store: claim TOTP step of user %s: %w", userID, classify(err))
	}
	return n == 1, nil
}
