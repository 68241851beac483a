package app

import (
	"context"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// auditListLimit bounds the audit entries one request returns.
const auditListLimit = 500

// audit records who did what, in the transaction of the change itself, so
// a change and its entry are committed together or not at all.
func (a *App) audit(ctx context.Context, tx *store.Tx, orgID, actor, action, target string) error {
	return tx.AddAudit(ctx, &carteiro.AuditEntry{ID: uuid.Must(uuid.NewV7()).String(), OrgID: orgID,
		At: a.clock.Now(), Actor: actor, Action: action, Target: target})
}

// AuditLog returns the organization's latest audit entries (owners only).
func (a *App) AuditLog(ctx context.Context, p *Principal) ([]*carteiro.AuditEntry, error) {
	if err := p.requireOwner(); err != nil {
		return nil, err
	}
	entries, err := a.store.ListAudit(ctx, p.Org.ID, auditListLimit)
	return entries, storeErr(err)
}
