package app

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// Page sizes of the audit log in Settings.
const (
	DefaultAuditPage = 50
	MaxAuditPage     = 500
)

// audit records who did what, in the transaction of the change itself, so
// a change and its entry are committed together or not at all.
func (a *App) audit(ctx context.Context, tx *store.Tx, orgID, actor, action, target string) error {
	return tx.AddAudit(ctx, &carteiro.AuditEntry{ID: uuid.Must(uuid.NewV7()).String(), OrgID: orgID,
		At: a.clock.Now(), Actor: actor, Action: action, Target: target})
}

// AuditQuery is a page of the audit log: Before is the cursor a previous
// page returned ("" for the newest entries).
type AuditQuery struct {
	Before string
	Limit  int
}

// AuditLog returns a page of the organization's audit entries, newest
// first, and the cursor of the next page ("" on the last one). Owners only.
func (a *App) AuditLog(ctx context.Context, p *Principal, q AuditQuery) ([]*carteiro.AuditEntry, string, error) {
	if err := p.requireOwner(); err != nil {
		return nil, "", err
	}
	switch {
	case q.Limit == 0:
		q.Limit = DefaultAuditPage
	case q.Limit < 1 || q.Limit > MaxAuditPage:
		return nil, "", carteiro.Invalid("limit", "out_of_range")
	}
	var before *store.AuditKey
	if q.Before != "" {
		k, ok := parseAuditCursor(q.Before)
		if !ok {
			return nil, "", carteiro.Invalid("before", "invalid_value")
		}
		before = &k
	}
	// One more than the page tells whether another page follows.
	entries, err := a.store.ListAudit(ctx, p.Org.ID, before, q.Limit+1)
	if err != nil {
		return nil, "", storeErr(err)
	}
	if len(entries) <= q.Limit {
		return entries, "", nil
	}
	entries = entries[:q.Limit]
	last := entries[len(entries)-1]
	return entries, strconv.FormatInt(last.At.UnixMicro(), 10) + "_" + last.ID, nil
}

// parseAuditCursor reads "<microseconds>_<entry id>".
func parseAuditCursor(s string) (store.AuditKey, bool) {
	at, id, ok := strings.Cut(s, "_")
	us, err := strconv.ParseInt(at, 10, 64)
	if !ok || err != nil {
		return store.AuditKey{}, false
	}
	if _, err := uuid.Parse(id); err != nil {
		return store.AuditKey{}, false
	}
	return store.AuditKey{At: time.UnixMicro(us).UTC(), ID: id}, true
}
