package app

import (
	"context"
	"errors"
	"strings"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// Dashboard users of an organization (D73). Owners manage them; the
// organization always keeps one owner.

// UserRequest describes a user to create.
type UserRequest struct {
	OrgID    string
	Email    string
	Password string
	Role     carteiro.Role
}

// minPasswordLength and maxPasswordLength bound a user's password: long
// enough to resist guessing at 5 tries a minute, short enough that hashing
// it costs what every other password costs.
const (
	minPasswordLength = 8
	maxPasswordLength = 1024
)

func checkNewPassword(field, password string) error {
	switch {
	case len(password) < minPasswordLength:
		return carteiro.Invalid(field, "too_short")
	case len(password) > maxPasswordLength:
		return carteiro.Invalid(field, "too_long")
	}
	return nil
}

// normalizeUserEmail checks an email and lowercases it whole, so that
// login is case-insensitive.
func normalizeUserEmail(email string) (string, error) {
	addr, err := carteiro.NewAddress("email", email, "")
	if err != nil {
		return "", carteiro.Invalid("email", "invalid_email")
	}
	return strings.ToLower(addr.Email), nil
}

// newUser checks r and builds the user with its password hashed.
func (a *App) newUser(r UserRequest) (*carteiro.User, error) {
	if r.Role == "" {
		r.Role = carteiro.RoleMember
	}
	email, err := normalizeUserEmail(r.Email)
	if err != nil {
		return nil, err
	}
	if !carteiro.ValidRole(r.Role) {
		return nil, carteiro.Invalid("role", "invalid_value")
	}
	if err := checkNewPassword("password", r.Password); err != nil {
		return nil, err
	}
	h, err := hashPassword(r.Password)
	if err != nil {
		return nil, &carteiro.Error{Code: carteiro.CodeInternal, Err: err}
	}
	return &carteiro.User{ID: uuid.Must(uuid.NewV7()).String(), OrgID: r.OrgID, Email: email, Role: r.Role,
		PasswordHash: h, CreatedAt: a.clock.Now()}, nil
}

// insertUser stores u with its audit entry; a taken email is CONFLICT.
func (a *App) insertUser(ctx context.Context, tx *store.Tx, u *carteiro.User, actor string) error {
	if err := tx.CreateUser(ctx, u); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return carteiro.Conflict("")
		}
		return err
	}
	return a.audit(ctx, tx, u.OrgID, actor, carteiro.AuditUserCreated, u.Email+" ("+string(u.Role)+")")
}

// CreateUser adds a user from the command line (`carteiro user create`).
func (a *App) CreateUser(ctx context.Context, r UserRequest) (*carteiro.User, error) {
	return a.createUser(ctx, r, actorCLI)
}

// AddUser adds a user to the caller's organization (owners only).
func (a *App) AddUser(ctx context.Context, p *Principal, r UserRequest) (*carteiro.User, error) {
	if err := p.requireOwner(); err != nil {
		return nil, err
	}
	r.OrgID = p.Org.ID
	return a.createUser(ctx, r, p.actor())
}

func (a *App) createUser(ctx context.Context, r UserRequest, actor string) (*carteiro.User, error) {
	u, err := a.newUser(r)
	if err != nil {
		return nil, err
	}
	if _, err := a.store.Organization(ctx, r.OrgID); err != nil {
		return nil, storeErr(err)
	}
	err = a.store.InTx(ctx, func(tx *store.Tx) error { return a.insertUser(ctx, tx, u, actor) })
	if err != nil {
		return nil, storeErr(err)
	}
	return u, nil
}

// ListUsers returns the caller's organization's users (owners only).
func (a *App) ListUsers(ctx context.Context, p *Principal) ([]*carteiro.User, error) {
	if err := p.requireOwner(); err != nil {
		return nil, err
	}
	users, err := a.store.ListUsers(ctx, p.Org.ID)
	return users, storeErr(err)
}

// SetUserRole changes a user's role (owners only); the last owner stays one.
func (a *App) SetUserRole(ctx context.Context, p *Principal, id string, role carteiro.Role) (*carteiro.User, error) {
	if err := p.requireOwner(); err != nil {
		return nil, err
	}
	if !carteiro.ValidRole(role) {
		return nil, carteiro.Invalid("role", "invalid_value")
	}
	var u *carteiro.User
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if u, err = tx.User(ctx, p.Org.ID, id); err != nil {
			return err
		}
		if u.Role == role {
			return nil
		}
		if u.Role == carteiro.RoleOwner {
			if err := lastOwnerStays(ctx, tx, p.Org.ID); err != nil {
				return err
			}
		}
		u.Role = role
		if err := tx.UpdateUser(ctx, u); err != nil {
			return err
		}
		return a.audit(ctx, tx, p.Org.ID, p.actor(), carteiro.AuditUserRole, u.Email+" ("+string(role)+")")
	})
	if err != nil {
		return nil, storeErr(err)
	}
	return u, nil
}

// DeleteUser removes a user and ends its sessions (owners only).
func (a *App) DeleteUser(ctx context.Context, p *Principal, id string) error {
	if err := p.requireOwner(); err != nil {
		return err
	}
	return storeErr(a.store.InTx(ctx, func(tx *store.Tx) error {
		u, err := tx.User(ctx, p.Org.ID, id)
		if err != nil {
			return err
		}
		if u.Role == carteiro.RoleOwner {
			if err := lastOwnerStays(ctx, tx, p.Org.ID); err != nil {
				return err
			}
		}
		if err := tx.DeleteUser(ctx, p.Org.ID, id); err != nil {
			return err
		}
		return a.audit(ctx, tx, p.Org.ID, p.actor(), carteiro.AuditUserDeleted, u.Email)
	}))
}

// lastOwnerStays refuses to remove the organization's only owner: nobody
// could then manage its keys and users.
func lastOwnerStays(ctx context.Context, tx *store.Tx, orgID string) error {
	n, err := tx.CountOwners(ctx, orgID)
	if err != nil {
		return err
	}
	if n <= 1 {
		return carteiro.InvalidState("last_owner")
	}
	return nil
}

// SetLanguage records the caller's dashboard language (pt-BR, en or es).
func (a *App) SetLanguage(ctx context.Context, p *Principal, lang string) (*carteiro.User, error) {
	switch lang {
	case "pt-BR", "en", "es":
	default:
		return nil, carteiro.Invalid("language", "invalid_value")
	}
	u := *p.User
	u.Language = lang
	if err := a.store.UpdateUser(ctx, &u); err != nil {
		return nil, storeErr(err)
	}
	return &u, nil
}
