package app

import (
	"context"
	"errors"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// Principal is who is calling: an API key and its organization, or a
// dashboard user signed in with a session (D73). A session's principal
// carries a Key too, an unsaved full_access key of the mode the dashboard
// asked for, so the product use cases serve both alike.
type Principal struct {
	Org *carteiro.Organization
	Key *carteiro.APIKey
	// User and Session are set for a dashboard session, nil for an API key.
	User    *carteiro.User
	Session *carteiro.Session
}

// actor names the caller in the audit log: a user's email, else "cli".
func (p *Principal) actor() string {
	if p != nil && p.User != nil {
		return p.User.Email
	}
	return actorCLI
}

// actorCLI is the audit log's name for the command line.
const actorCLI = "cli"

// requireOwner refuses members what D73 keeps for owners: managing API
// keys and users, and deleting domains. API keys are not users; their own
// permissions apply (D6).
func (p *Principal) requireOwner() error {
	if p.User != nil && p.User.Role != carteiro.RoleOwner {
		return &carteiro.Error{Code: carteiro.CodeForbidden, Details: map[string]any{"reason": "role"}}
	}
	return nil
}

// Mode is the key's mode; objects it creates and sees belong to it (D7).
func (p *Principal) Mode() carteiro.Mode { return p.Key.Mode }

// requireFull refuses sending_access keys everywhere but sending (D6).
func (p *Principal) requireFull() error {
	if p.Key.Permission != carteiro.PermissionFull {
		return &carteiro.Error{Code: carteiro.CodeForbidden}
	}
	return nil
}

// mayUseFrom refuses a from address outside the key's domain restriction:
// every path that makes mail leave asks it (sends, batches, resends,
// broadcasts created, sent or started, sender verification emails), so a
// restricted key cannot escape its domain through another key's objects.
// field names the address in the 403's details.
func (p *Principal) mayUseFrom(email, field string) error {
	if p.Key.Domain != "" && !carteiro.SenderDomainMatches(carteiro.DomainOf(email), p.Key.Domain) {
		return &carteiro.Error{Code: carteiro.CodeForbidden, Details: map[string]any{"field": field}}
	}
	return nil
}

// Authenticate resolves a bearer key to its principal. Malformed, unknown
// and revoked keys are all INVALID_API_KEY (D11).
func (a *App) Authenticate(ctx context.Context, key string) (*Principal, error) {
	if _, ok := carteiro.KeyMode(key); !ok {
		return nil, &carteiro.Error{Code: carteiro.CodeInvalidAPIKey}
	}
	k, org, err := a.store.KeyWithOrganization(ctx, carteiro.HashKey(key))
	if errors.Is(err, store.ErrNotFound) {
		return nil, &carteiro.Error{Code: carteiro.CodeInvalidAPIKey}
	}
	if err != nil {
		return nil, storeErr(err)
	}
	if k.RevokedAt != nil {
		return nil, &carteiro.Error{Code: carteiro.CodeInvalidAPIKey}
	}
	a.noteKeyUse(ctx, k)
	return &Principal{Org: org, Key: k}, nil
}
