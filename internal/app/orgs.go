package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// CreateOrganization makes a new organization (D4, `carteiro org create`).
func (a *App) CreateOrganization(ctx context.Context, name string) (*carteiro.Organization, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 255 {
		return nil, carteiro.Invalid("name", "required")
	}
	org := &carteiro.Organization{ID: uuid.Must(uuid.NewV7()).String(), Name: name, CreatedAt: a.clock.Now()}
	if err := a.store.CreateOrganization(ctx, org); err != nil {
		return nil, storeErr(err)
	}
	return org, nil
}

// ListOrganizations returns every organization, oldest first (`carteiro org
// list`). The caller shows no credential: PasswordHash and TOTPSecret only
// tell whether reauthentication is set up.
func (a *App) ListOrganizations(ctx context.Context) ([]*carteiro.Organization, error) {
	orgs, err := a.store.ListOrganizations(ctx)
	return orgs, storeErr(err)
}

// NewKey is a key as shown once at creation: the only time the secret exists
// outside the caller's hands.
type NewKey struct {
	Key    *carteiro.APIKey
	Secret string
}

// KeyRequest describes a key to create (D6, D57).
type KeyRequest struct {
	OrgID      string
	Name       string
	Mode       carteiro.Mode
	Permission carteiro.Permission
	Domain     string
	// CreatedBy names who asked, for the key list and the audit log;
	// empty is the command line.
	CreatedBy string
}

// CreateKey makes an API key and returns its secret once.
func (a *App) CreateKey(ctx context.Context, r KeyRequest) (*NewKey, error) {
	if r.Permission == "" {
		r.Permission = carteiro.PermissionFull
	}
	switch {
	case strings.TrimSpace(r.Name) == "":
		return nil, carteiro.Invalid("name", "required")
	case !carteiro.ValidMode(r.Mode):
		return nil, carteiro.Invalid("mode", "invalid_value")
	case !carteiro.ValidPermission(r.Permission):
		return nil, carteiro.Invalid("permission", "invalid_value")
	}
	if r.Domain != "" {
		r.Domain = carteiro.NormalizeDomainName(r.Domain)
		if !carteiro.ValidDomainName(r.Domain) {
			return nil, carteiro.Invalid("domain", "invalid_domain")
		}
	}
	if _, err := a.store.Organization(ctx, r.OrgID); err != nil {
		return nil, storeErr(err)
	}
	secret := carteiro.NewSecretKey(r.Mode)
	k := &carteiro.APIKey{
		ID: uuid.Must(uuid.NewV7()).String(), OrgID: r.OrgID, Name: strings.TrimSpace(r.Name),
		Mode: r.Mode, Permission: r.Permission, Domain: r.Domain,
		Hash: carteiro.HashKey(secret), Prefix: secret[:len(carteiro.LiveKeyPrefix)+4], CreatedAt: a.clock.Now(),
		CreatedBy: r.CreatedBy,
	}
	if k.CreatedBy == "" {
		k.CreatedBy = actorCLI
	}
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.CreateAPIKey(ctx, k); err != nil {
			return err
		}
		return a.audit(ctx, tx, k.OrgID, k.CreatedBy, carteiro.AuditKeyCreated, keyTarget(k))
	})
	if err != nil {
		return nil, storeErr(err)
	}
	return &NewKey{Key: k, Secret: secret}, nil
}

// keyTarget names a key in the audit log: its id, name and mode.
func keyTarget(k *carteiro.APIKey) string {
	return k.ID + " " + k.Name + " (" + string(k.Mode) + ")"
}

// ListKeys returns an organization's keys (never their secrets).
func (a *App) ListKeys(ctx context.Context, orgID string) ([]*carteiro.APIKey, error) {
	if _, err := a.store.Organization(ctx, orgID); err != nil {
		return nil, storeErr(err)
	}
	keys, err := a.store.ListAPIKeys(ctx, orgID)
	return keys, storeErr(err)
}

// RevokeKey revokes a key at once (`carteiro key revoke`); requests with
// it then get 401.
func (a *App) RevokeKey(ctx context.Context, id string) error {
	k, err := a.store.APIKey(ctx, id)
	if err != nil {
		return storeErr(err)
	}
	return a.revokeKey(ctx, k, actorCLI)
}

func (a *App) revokeKey(ctx context.Context, k *carteiro.APIKey, actor string) error {
	return storeErr(a.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.RevokeAPIKey(ctx, k.ID, a.clock.Now()); err != nil {
			return err
		}
		if k.RevokedAt != nil {
			return nil // revoked before: nothing happened now
		}
		return a.audit(ctx, tx, k.OrgID, actor, carteiro.AuditKeyRevoked, keyTarget(k))
	}))
}

// Bootstrap is D4's first start: with an empty database it creates a default
// organization with one live and one test key, and returns them so serve
// can print them once. With any organization present it does nothing.
func (a *App) Bootstrap(ctx context.Context) (org *carteiro.Organization, keys []*NewKey, err error) {
	n, err := a.store.CountOrganizations(ctx)
	if err != nil || n > 0 {
		return nil, nil, storeErr(err)
	}
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		// Re-count inside the write transaction: two processes starting on one
		// new PostgreSQL database must not both bootstrap.
		if n, err := tx.CountOrganizations(ctx); err != nil || n > 0 {
			return err
		}
		org = &carteiro.Organization{ID: uuid.Must(uuid.NewV7()).String(), Name: "Default", CreatedAt: a.clock.Now()}
		if err := tx.CreateOrganization(ctx, org); err != nil {
			return err
		}
		for _, mode := range []carteiro.Mode{carteiro.ModeLive, carteiro.ModeTest} {
			secret := carteiro.NewSecretKey(mode)
			k := &carteiro.APIKey{
				ID: uuid.Must(uuid.NewV7()).String(), OrgID: org.ID, Name: "default " + string(mode),
				Mode: mode, Permission: carteiro.PermissionFull,
				Hash: carteiro.HashKey(secret), Prefix: secret[:len(carteiro.LiveKeyPrefix)+4], CreatedAt: a.clock.Now(),
				CreatedBy: actorCLI,
			}
			if err := tx.CreateAPIKey(ctx, k); err != nil {
				return err
			}
			if err := a.audit(ctx, tx, org.ID, actorCLI, carteiro.AuditKeyCreated, keyTarget(k)); err != nil {
				return err
			}
			keys = append(keys, &NewKey{Key: k, Secret: secret})
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("bootstrap: %w", storeErr(err))
	}
	return org, keys, nil
}
