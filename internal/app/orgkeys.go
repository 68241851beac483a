package app

import (
	"context"
	"errors"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// API keys managed from the dashboard (owners only, D73). The command
// line's CreateKey, ListKeys and RevokeKey name the organization; these
// take it from the caller.

// CreateOrgKey makes a key in the caller's organization; domainID, when
// set, restricts the key's from addresses to that domain of the
// organization (D57).
func (a *App) CreateOrgKey(ctx context.Context, p *Principal, r KeyRequest, domainID string) (*NewKey, error) {
	if err := p.requireOwner(); err != nil {
		return nil, err
	}
	r.OrgID, r.CreatedBy, r.Domain = p.Org.ID, p.actor(), ""
	if domainID != "" {
		d, err := a.store.Domain(ctx, p.Org.ID, domainID)
		if errors.Is(err, store.ErrNotFound) {
			return nil, carteiro.Invalid("domainId", "invalid_value")
		}
		if err != nil {
			return nil, storeErr(err)
		}
		r.Domain = d.Name
	}
	return a.CreateKey(ctx, r)
}

// OrgKey is a key as the dashboard lists it: with the id of the domain it
// is restricted to, when that domain still exists.
type OrgKey struct {
	Key      *carteiro.APIKey
	DomainID string
}

// ListOrgKeys lists the caller's organization's keys, revoked ones too.
func (a *App) ListOrgKeys(ctx context.Context, p *Principal) ([]OrgKey, error) {
	if err := p.requireOwner(); err != nil {
		return nil, err
	}
	keys, err := a.ListKeys(ctx, p.Org.ID)
	if err != nil {
		return nil, err
	}
	out := make([]OrgKey, len(keys))
	ids := map[string]string{}
	for i, k := range keys {
		out[i].Key = k
		if k.Domain == "" {
			continue
		}
		id, seen := ids[k.Domain]
		if !seen {
			d, err := a.store.DomainByName(ctx, p.Org.ID, k.Domain)
			switch {
			case err == nil:
				id = d.ID
			case !errors.Is(err, store.ErrNotFound):
				return nil, storeErr(err)
			}
			ids[k.Domain] = id
		}
		out[i].DomainID = id
	}
	return out, nil
}

// RevokeOrgKey revokes a key of the caller's organization; another
// organization's key is NOT_FOUND.
func (a *App) RevokeOrgKey(ctx context.Context, p *Principal, id string) error {
	if err := p.requireOwner(); err != nil {
		return err
	}
	k, err := a.store.APIKey(ctx, id)
	if err != nil {
		return storeErr(err)
	}
	if k.OrgID != p.Org.ID {
		return carteiro.NotFound()
	}
	return a.revokeKey(ctx, k, p.actor())
}
