package app

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// Suppression page sizes (D15).
const (
	DefaultSuppressionPage = 50
	MaxSuppressionPage     = 200
)

// Categories of D45.
const (
	CategoryAll       = "all"
	CategoryMarketing = "marketing"
)

// ispBlockExpiry is how long a policy block suppresses an address (D46).
const ispBlockExpiry = 7 * 24 * time.Hour

// SuppressionInput is POST /suppressions after decoding.
type SuppressionInput struct {
	Email     string
	Reason    string
	ExpiresAt *time.Time
}

// CreateSuppression adds a manual suppression (4.6): reason manual, bounce
// or complaint, category all.
func (a *App) CreateSuppression(ctx context.Context, p *Principal, in SuppressionInput) (*carteiro.Suppression, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	addr, err := carteiro.ParseAddress("email", in.Email)
	if err != nil {
		return nil, err
	}
	if addr.Name != "" {
		return nil, carteiro.Invalid("email", "invalid_email")
	}
	switch in.Reason {
	case "":
		in.Reason = "manual"
	case "manual", "bounce", "complaint":
	default:
		return nil, carteiro.Invalid("reason", "invalid_value")
	}
	now := a.clock.Now()
	if in.ExpiresAt != nil && !in.ExpiresAt.After(now) {
		return nil, carteiro.Invalid("expiresAt", "in_the_past")
	}
	s := &carteiro.Suppression{ID: uuid.Must(uuid.NewV7()).String(), OrgID: p.Org.ID, Email: strings.ToLower(addr.Email),
		Reason: in.Reason, Source: "manual", Category: CategoryAll, Status: "active", ExpiresAt: in.ExpiresAt, CreatedAt: now, UpdatedAt: now}
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.HoldForSuppression(ctx, s.OrgID, s.Email); err != nil {
			return err
		}
		if err := tx.ExpireSuppressions(ctx, s.OrgID, s.Email, s.Category, now); err != nil {
			return err
		}
		if prev, err := tx.ActiveSuppression(ctx, s.OrgID, s.Email, s.Category, now); err == nil {
			return carteiro.Conflict(prev.ID)
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		return tx.CreateSuppression(ctx, s)
	})
	if errors.Is(err, store.ErrConflict) {
		return nil, carteiro.Conflict("")
	}
	if err != nil {
		return nil, storeErr(err)
	}
	return s, nil
}

// autoSuppress adds a suppression of D46 inside tx, unless one is already
// active for the address and category.
func (a *App) autoSuppress(ctx context.Context, tx *store.Tx, orgID, email, reason, category string, expires *time.Time) error {
	return a.suppressIn(ctx, tx, orgID, email, reason, "auto", category, expires)
}

// suppressIn adds a suppression inside tx, unless one is already active for
// the address and category.
func (a *App) suppressIn(ctx context.Context, tx *store.Tx, orgID, email, reason, source, category string, expires *time.Time) error {
	now := a.clock.Now()
	email = strings.ToLower(email)
	if err := tx.HoldForSuppression(ctx, orgID, email); err != nil {
		return err
	}
	if err := tx.ExpireSuppressions(ctx, orgID, email, category, now); err != nil {
		return err
	}
	if _, err := tx.ActiveSuppression(ctx, orgID, email, category, now); err == nil {
		return nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return tx.CreateSuppression(ctx, &carteiro.Suppression{ID: uuid.Must(uuid.NewV7()).String(), OrgID: orgID, Email: email,
		Reason: reason, Source: source, Category: category, Status: "active", ExpiresAt: expires, CreatedAt: now, UpdatedAt: now})
}

// SuppressionQuery is GET /suppressions (D44).
type SuppressionQuery struct {
	Status, Reason, Email string
	After                 *time.Time
	Limit                 int
}

// ListSuppressions returns a page of the organization's suppressions.
func (a *App) ListSuppressions(ctx context.Context, p *Principal, q SuppressionQuery) ([]*carteiro.Suppression, *time.Time, error) {
	if err := p.requireFull(); err != nil {
		return nil, nil, err
	}
	switch q.Status {
	case "":
		q.Status = "active"
	case "active", "expired", "inactive":
	default:
		return nil, nil, carteiro.Invalid("status", "invalid_value")
	}
	switch q.Reason {
	case "", "manual", "bounce", "isp_block", "mailbox_not_found", "complaint", "unsubscribe":
	default:
		return nil, nil, carteiro.Invalid("reason", "invalid_value")
	}
	switch {
	case q.Limit == 0:
		q.Limit = DefaultSuppressionPage
	case q.Limit < 1 || q.Limit > MaxSuppressionPage:
		return nil, nil, carteiro.Invalid("limit", "out_of_range")
	}
	ss, next, err := a.store.ListSuppressions(ctx, store.SuppressionFilter{OrgID: p.Org.ID, Status: q.Status, Reason: q.Reason,
		Email: q.Email, After: q.After, Limit: q.Limit, Now: a.clock.Now()})
	return ss, next, storeErr(err)
}

// GetSuppression returns one suppression.
func (a *App) GetSuppression(ctx context.Context, p *Principal, id string) (*carteiro.Suppression, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	s, err := a.store.Suppression(ctx, p.Org.ID, id)
	return s, storeErr(err)
}

// DeleteSuppression removes one for good.
func (a *App) DeleteSuppression(ctx context.Context, p *Principal, id string) error {
	if err := p.requireFull(); err != nil {
		return err
	}
	return storeErr(a.store.DeleteSuppression(ctx, p.Org.ID, id))
}

// ReactivateSuppression lets the address receive mail again: the
// suppression becomes inactive (D46).
func (a *App) ReactivateSuppression(ctx context.Context, p *Principal, id string) error {
	if err := p.requireFull(); err != nil {
		return err
	}
	return storeErr(a.store.SetSuppressionStatus(ctx, p.Org.ID, id, "inactive", a.clock.Now()))
}

// splitSuppressed is the check at the hand-off to SMTP (D23), made under
// the delivery gate: recipients suppressed now are marked so, with an
// email.suppressed event each, to be recorded with the attempt.
func (a *App) splitSuppressed(ctx context.Context, gate *store.DeliveryGate, e *carteiro.Email, pending []*carteiro.Recipient) (keep []*carteiro.Recipient, events []*carteiro.EmailEvent, err error) {
	categories := []string{CategoryAll}
	if e.BroadcastID != "" {
		categories = append(categories, CategoryMarketing) // D45: marketing blocks broadcasts only
	}
	blocked, err := gate.Suppressed(ctx, categories, a.clock.Now())
	if err != nil || len(blocked) == 0 {
		return pending, nil, err
	}
	now := a.clock.Now()
	for _, r := range pending {
		if !blocked[strings.ToLower(r.Address)] {
			keep = append(keep, r)
			continue
		}
		r.Status, r.UpdatedAt = carteiro.RecipientSuppressed, now
		events = append(events, newEvent(e.ID, carteiro.EventSuppressed, now, map[string]any{"recipient": r.Address}))
	}
	e.SuppressedAt = &now
	return keep, events, nil
}
