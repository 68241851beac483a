package app

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// Broadcast list sizes (D15).
const (
	DefaultBroadcastPage = 50
	MaxBroadcastPage     = 200
)

// BroadcastInput is POST /broadcasts after decoding (D42); nil is absent.
type BroadcastInput struct {
	AudienceID  *string
	From        *AddressInput
	Subject     *string
	HTML, Text  *string
	TemplateID  *string
	Variables   *carteiro.JSONObject
	ReplyTo     *AddressInput
	Name        *string
	ScheduledAt *time.Time
}

// StartBroadcastJob begins the fan-out of a scheduled broadcast at its time.
type StartBroadcastJob struct {
	BroadcastID string `json:"broadcastId"`
}

// Kind names the job.
func (StartBroadcastJob) Kind() string { return "start_broadcast" }

// CreateBroadcast stores a draft, or a scheduled broadcast that starts by
// itself at scheduledAt (D42).
func (a *App) CreateBroadcast(ctx context.Context, p *Principal, in BroadcastInput) (*carteiro.Broadcast, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	now := a.clock.Now()
	b := &carteiro.Broadcast{ID: uuid.Must(uuid.NewV7()).String(), OrgID: p.Org.ID, Mode: p.Mode(), Status: carteiro.BroadcastDraft,
		Name: in.Name, HTML: in.HTML, Text: in.Text, TemplateID: in.TemplateID, Variables: in.Variables, CreatedAt: now, UpdatedAt: now}
	if in.AudienceID == nil {
		return nil, carteiro.Invalid("audienceId", "required")
	}
	aud, err := a.store.Audience(ctx, p.Org.ID, *in.AudienceID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, carteiro.Invalid("audienceId", "invalid_value")
	case err != nil:
		return nil, storeErr(err)
	}
	b.AudienceID, b.AudienceName = aud.ID, &aud.Name
	if in.From == nil {
		return nil, carteiro.Invalid("fromEmail", "required")
	}
	if b.From, err = in.From.parse("fromEmail"); err != nil {
		return nil, err
	}
	if in.Subject == nil || *in.Subject == "" {
		return nil, carteiro.Invalid("subject", "required")
	}
	if err := carteiro.ValidateSubject(*in.Subject); err != nil {
		return nil, err
	}
	b.Subject = *in.Subject
	if err := a.checkBroadcastContent(ctx, p, b); err != nil {
		return nil, err
	}
	if in.ReplyTo != nil {
		rt, err := in.ReplyTo.parse("replyTo")
		if err != nil {
			return nil, err
		}
		b.ReplyTo = &rt
	}
	if err := carteiro.ValidateBroadcastName(b.Name); err != nil {
		return nil, err
	}
	if err := p.mayUseFrom(b.From.Email, "fromEmail"); err != nil {
		return nil, err
	}
	if p.Mode() == carteiro.ModeLive {
		if _, err := a.senderDomain(ctx, p.Org.ID, b.From.Email); err != nil {
			return nil, err
		}
	}
	if in.ScheduledAt != nil {
		at, err := carteiro.ResolveSchedule(now, in.ScheduledAt)
		if err != nil {
			var ce *carteiro.Error
			if errors.As(err, &ce) {
				ce.Field = "scheduledAt"
			}
			return nil, err
		}
		if at == nil {
			at = &now // a time not in the future means now (as D21 for emails)
		}
		b.Status, b.ScheduledAt = carteiro.BroadcastScheduled, at
	}
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.CreateBroadcast(ctx, b); err != nil {
			return err
		}
		if b.ScheduledAt == nil {
			return nil
		}
		return a.queue.EnqueueTx(ctx, tx, StartBroadcastJob{BroadcastID: b.ID}, JobOpts{ScheduledAt: *b.ScheduledAt, Queue: BroadcastQueue})
	})
	return b, storeErr(err)
}

// checkBroadcastContent applies D42: one of html, text and templateId, each
// a Handlebars source that compiles, the template active.
func (a *App) checkBroadcastContent(ctx context.Context, p *Principal, b *carteiro.Broadcast) error {
	given := 0
	for _, x := range []*string{b.HTML, b.Text, b.TemplateID} {
		if x != nil {
			given++
		}
	}
	switch {
	case given == 0:
		return carteiro.Invalid("html", "required")
	case b.TemplateID != nil && given > 1:
		field := "html"
		if b.HTML == nil {
			field = "text"
		}
		return carteiro.Invalid(field, "not_allowed")
	}
	subject := b.Subject
	src := carteiro.TemplateSource{Format: carteiro.TemplateHandlebars, Subject: &subject, Text: b.Text}
	if b.TemplateID != nil {
		t, err := a.store.Template(ctx, p.Org.ID, *b.TemplateID)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return carteiro.Invalid("templateId", "invalid_value")
		case err != nil:
			return storeErr(err)
		case !t.IsActive:
			return carteiro.Invalid("templateId", "inactive")
		}
		return nil
	}
	src.HTML = "x"
	if b.HTML != nil {
		if *b.HTML == "" {
			return carteiro.Invalid("html", "empty")
		}
		src.HTML = *b.HTML
	}
	return templateErr(a.templates.Check(ctx, src))
}

// GetBroadcast returns one broadcast of the key's mode (D7).
func (a *App) GetBroadcast(ctx context.Context, p *Principal, id string) (*carteiro.Broadcast, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	b, err := a.store.Broadcast(ctx, p.Org.ID, p.Mode(), id)
	return b, storeErr(err)
}

// BroadcastQuery is GET /broadcasts (4.5).
type BroadcastQuery struct {
	Status   string
	From, To *time.Time
	After    *time.Time
	Limit    int
}

// ListBroadcasts returns a page of broadcasts, newest first (D27 cursor).
func (a *App) ListBroadcasts(ctx context.Context, p *Principal, q BroadcastQuery) ([]*carteiro.Broadcast, *time.Time, error) {
	if err := p.requireFull(); err != nil {
		return nil, nil, err
	}
	if q.Status != "" && !carteiro.ValidBroadcastStatus(q.Status) {
		return nil, nil, carteiro.Invalid("status", "invalid_value")
	}
	switch {
	case q.Limit == 0:
		q.Limit = DefaultBroadcastPage
	case q.Limit > MaxBroadcastPage:
		return nil, nil, carteiro.Invalid("limit", "out_of_range")
	}
	list, next, err := a.store.ListBroadcasts(ctx, store.BroadcastFilter{OrgID: p.Org.ID, Mode: p.Mode(), Status: q.Status,
		From: q.From, To: q.To, After: q.After, Limit: q.Limit})
	return list, next, storeErr(err)
}

// SendBroadcast starts the fan-out of a draft or scheduled broadcast (D43).
func (a *App) SendBroadcast(ctx context.Context, p *Principal, id string) (*carteiro.Broadcast, error) {
	b, err := a.GetBroadcast(ctx, p, id)
	if err != nil {
		return nil, err
	}
	// Another key may have created it: the sending key's restriction holds.
	if err := p.mayUseFrom(b.From.Email, "fromEmail"); err != nil {
		return nil, err
	}
	var started bool
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		started, err = a.startBroadcast(ctx, tx, b)
		return err
	})
	if err != nil {
		return nil, storeErr(err)
	}
	if !started {
		return nil, a.broadcastStateConflict(ctx, p, id)
	}
	return b, nil
}

// broadcastStateConflict is the 409 INVALID_STATE of a broadcast that
// could not move, carrying its current status (D11), read again since the
// status that refused the move may have been written by another request.
func (a *App) broadcastStateConflict(ctx context.Context, p *Principal, id string) error {
	cur, err := a.GetBroadcast(ctx, p, id)
	if err != nil {
		return err
	}
	return carteiro.InvalidState(string(cur.Status))
}

// StartScheduledBroadcast is the worker side of StartBroadcastJob.
func (a *App) StartScheduledBroadcast(ctx context.Context, id string) error {
	return a.store.InTx(ctx, func(tx *store.Tx) error {
		b, err := tx.BroadcastByID(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil || b.Status != carteiro.BroadcastScheduled {
			return err // sent by hand, or cancelled, meanwhile
		}
		_, err = a.startBroadcast(ctx, tx, b)
		return err
	})
}

// startBroadcast moves b to sending and enqueues its first fan-out step;
// false when b is not draft or scheduled.
func (a *App) startBroadcast(ctx context.Context, tx *store.Tx, b *carteiro.Broadcast) (bool, error) {
	aud, err := tx.Audience(ctx, b.OrgID, b.AudienceID)
	if errors.Is(err, store.ErrNotFound) {
		aud = &carteiro.Audience{} // deleted: the fan-out finds no contact
	} else if err != nil {
		return false, err
	}
	prev := b.Status
	b.Status, b.UpdatedAt = carteiro.BroadcastSending, a.clock.Now()
	// The total is the audience's size now; the fan-out corrects it to the
	// contacts it actually walked when it ends.
	b.RecipientsTotal = aud.ContactsCount
	ok, err := tx.SetBroadcastStatus(ctx, b, carteiro.BroadcastDraft, carteiro.BroadcastScheduled)
	if err != nil || !ok {
		b.Status = prev
		return false, err
	}
	return true, a.queue.EnqueueTx(ctx, tx, FanOutJob{BroadcastID: b.ID}, JobOpts{Queue: BroadcastQueue})
}

// CancelBroadcast stops a scheduled or sending broadcast: no contact not
// yet handed over gets it, and its emails still queued are cancelled;
// emails already handed to SMTP are unaffected (3.2, D43).
func (a *App) CancelBroadcast(ctx context.Context, p *Principal, id string) (*carteiro.Broadcast, error) {
	b, err := a.GetBroadcast(ctx, p, id)
	if err != nil {
		return nil, err
	}
	var ok bool
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		// This update takes the broadcast's row first: a fan-out step in
		// progress finishes before it, and its emails are cancelled below.
		if ok, err = tx.CancelBroadcast(ctx, b.ID, a.clock.Now()); err != nil || !ok {
			return err
		}
		if _, err = tx.CancelBroadcastEmails(ctx, b.ID); err != nil {
			return err
		}
		b, err = tx.BroadcastByID(ctx, b.ID)
		return err
	})
	if err != nil {
		return nil, storeErr(err)
	}
	if !ok {
		return nil, a.broadcastStateConflict(ctx, p, id)
	}
	return b, nil
}
