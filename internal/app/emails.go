package app

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// Page sizes of GET /emails (4.1, section 8).
const (
	DefaultEmailPage = 50
	MaxEmailPage     = 100
)

// EmailQuery is GET /emails after decoding.
type EmailQuery struct {
	Status, Recipient, FromEmail, SubjectContains, APIKeyID, Tag string
	From, To, After                                              *time.Time
	Limit                                                        int
}

// emailStatuses are the values GET /emails accepts for status (3.1).
var emailStatuses = map[string]bool{
	"queued": true, "processing": true, "sent": true, "delivered": true, "bounced": true, "failed": true,
	"skipped": true, "scheduled": true, "cancelled": true, "complained": true,
}

// ListEmails returns a page of the caller's mode's emails, newest first,
// with the cursor of the next page (D27, D28). A sending_access key sees
// only the emails it sent (D6).
func (a *App) ListEmails(ctx context.Context, p *Principal, q EmailQuery) ([]*carteiro.Email, *time.Time, error) {
	if q.Status != "" && !emailStatuses[q.Status] {
		return nil, nil, carteiro.Invalid("status", "invalid_value")
	}
	if q.APIKeyID != "" {
		if _, err := uuid.Parse(q.APIKeyID); err != nil {
			return nil, nil, carteiro.Invalid("apiKeyId", "invalid_uuid")
		}
	}
	switch {
	case q.Limit == 0:
		q.Limit = DefaultEmailPage
	case q.Limit < 1 || q.Limit > MaxEmailPage:
		return nil, nil, carteiro.Invalid("limit", "out_of_range")
	}
	f := store.EmailFilter{OrgID: p.Org.ID, Mode: p.Mode(), Status: q.Status, Recipient: q.Recipient, FromEmail: q.FromEmail,
		SubjectContains: q.SubjectContains, APIKeyID: q.APIKeyID, Tag: q.Tag, From: q.From, To: q.To, After: q.After, Limit: q.Limit}
	if p.Key.Permission != carteiro.PermissionFull {
		if q.APIKeyID != "" && q.APIKeyID != p.Key.ID {
			return nil, nil, nil // another key's emails: an empty page, never someone else's
		}
		f.APIKeyID = p.Key.ID
	}
	emails, next, err := a.store.ListEmails(ctx, f)
	if err != nil {
		return nil, nil, storeErr(err)
	}
	return emails, next, nil
}

// GetEmail returns one email of the caller's organization and mode.
func (a *App) GetEmail(ctx context.Context, p *Principal, id string) (*carteiro.Email, error) {
	e, err := a.store.Email(ctx, p.Org.ID, p.Mode(), id)
	if err != nil {
		return nil, storeErr(err)
	}
	if p.Key.Permission != carteiro.PermissionFull && e.APIKeyID != p.Key.ID {
		return nil, carteiro.NotFound()
	}
	return e, nil
}

// EmailEvents returns an email's timeline.
func (a *App) EmailEvents(ctx context.Context, p *Principal, id string) ([]*carteiro.EmailEvent, error) {
	if _, err := a.GetEmail(ctx, p, id); err != nil {
		return nil, err
	}
	evs, err := a.store.EmailEvents(ctx, id)
	return evs, storeErr(err)
}

// EmailTags returns the distinct tags of the caller's mode's emails.
func (a *App) EmailTags(ctx context.Context, p *Principal) (map[string][]string, []string, error) {
	if err := p.requireFull(); err != nil {
		return nil, nil, err
	}
	tags, err := a.store.EmailTags(ctx, p.Org.ID, p.Mode())
	if err != nil {
		return nil, nil, storeErr(err)
	}
	values := map[string][]string{}
	var names []string
	for _, t := range tags {
		if _, ok := values[t.Name]; !ok {
			names = append(names, t.Name)
		}
		values[t.Name] = append(values[t.Name], t.Value)
	}
	return values, names, nil
}

// CancelEmail moves a scheduled email to cancelled (D29); from any other
// status it is a 409 naming the status.
func (a *App) CancelEmail(ctx context.Context, p *Principal, id string) error {
	if err := p.requireFull(); err != nil {
		return err
	}
	e, err := a.GetEmail(ctx, p, id)
	if err != nil {
		return err
	}
	now := a.clock.Now()
	return storeErr(a.store.InTx(ctx, func(tx *store.Tx) error {
		ok, err := tx.SetEmailStatusIf(ctx, e.ID, carteiro.EmailScheduled, carteiro.EmailCancelled)
		if err != nil {
			return err
		}
		if !ok {
			cur, err := tx.EmailByID(ctx, e.ID)
			if err != nil {
				return err
			}
			return carteiro.InvalidState(string(cur.Status))
		}
		return tx.InsertEvent(ctx, newEvent(e.ID, carteiro.EventCancelled, now, nil))
	}))
}

// ResendEmail copies a failed or cancelled email into a new one (D29).
func (a *App) ResendEmail(ctx context.Context, p *Principal, id string) (*SendResult, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	orig, err := a.GetEmail(ctx, p, id)
	if err != nil {
		return nil, err
	}
	if orig.Status != carteiro.EmailFailed && orig.Status != carteiro.EmailCancelled {
		return nil, carteiro.InvalidState(string(orig.Status))
	}
	// Another key may have sent the original: the resending key's
	// restriction holds.
	if err := p.mayUseFrom(orig.From.Email, "from"); err != nil {
		return nil, err
	}
	if orig.HTML == "" && orig.Text == "" {
		// Its content was deleted (D77 retention, D78 erasure): there is
		// nothing left to send again.
		return nil, &carteiro.Error{Code: carteiro.CodeInvalidState, Details: map[string]any{"status": string(orig.Status), "content": "deleted"}}
	}
	now := a.clock.Now()
	e := &carteiro.Email{
		ID: uuid.Must(uuid.NewV7()).String(), OrgID: orig.OrgID, Mode: orig.Mode, Sandbox: orig.Sandbox,
		APIKeyID: p.Key.ID, APIKeyName: p.Key.Name, From: orig.From, To: orig.To, Cc: orig.Cc, Bcc: orig.Bcc,
		ReplyTo: orig.ReplyTo, Subject: orig.Subject, HTML: orig.HTML, Text: orig.Text, Headers: orig.Headers,
		Attachments: orig.Attachments, Tags: orig.Tags, Status: carteiro.EmailQueued, CreatedAt: now,
	}
	if orig.ScheduledAt != nil && orig.ScheduledAt.After(now) {
		e.ScheduledAt, e.Status = orig.ScheduledAt, carteiro.EmailScheduled
	}
	var domain store.VerifiedDomain
	if !e.Sandbox {
		// The sender rules apply again: the domain may have failed since.
		if domain, err = a.sendingDomain(ctx, p.Org.ID, e.From.Email); err != nil {
			return nil, err
		}
		e.DomainID = domain.ID
	}
	return a.acceptOne(ctx, p, e, domain, &SendRequest{})
}
