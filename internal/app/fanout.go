package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// fanOutChunk is how many contacts one fan-out step hands over, in one
// transaction with their emails and delivery jobs. 1,000 rather than 500
// handed 20,000 recipients over 15 % faster (docs/benchmarks-campaigns.md);
// a step still takes a fraction of a second.
const fanOutChunk = 1000

// fanOutStepsPerJob is how many steps one FanOutJob runs, each in its own
// transaction, before its last step enqueues the next job. Starting a job
// cost 5 to 70 ms of River's fetching per step of about 200 ms on
// PostgreSQL beside the deliveries (docs/benchmarks-campaigns.md); ten
// steps keep a job to a few seconds.
const fanOutStepsPerJob = 10

// FanOutJob hands the next chunks of a sending broadcast's contacts to the
// delivery engine. Its last step enqueues the next job, so one broadcast
// has one job at a time, and the cursor moves only when a step commits: a
// crash repeats at most the step that did not commit, which created
// nothing, when the job that was running runs again.
type FanOutJob struct {
	BroadcastID string `json:"broadcastId"`
}

// Kind names the job.
func (FanOutJob) Kind() string { return "broadcast_fan_out" }

// FanOut is the worker side of FanOutJob (D42, D43, D45).
func (a *App) FanOut(ctx context.Context, id string) error {
	for step := 1; ; step++ {
		last := step == fanOutStepsPerJob
		var more bool
		err := a.store.InTx(ctx, func(tx *store.Tx) error {
			b, err := tx.LockSendingBroadcast(ctx, id)
			if errors.Is(err, store.ErrNotFound) {
				more = false
				return nil // cancelled, or already done
			}
			if err != nil {
				return err
			}
			more, err = a.fanOutStep(ctx, tx, b, last)
			return err
		})
		if err != nil || !more || last {
			return err
		}
	}
}

// fanOutStep hands over the next chunk of b's contacts. more tells that
// contacts remain for this job's next step; when last is set they go to a
// new job instead, enqueued here.
func (a *App) fanOutStep(ctx context.Context, tx *store.Tx, b *carteiro.Broadcast, last bool) (more bool, err error) {
	now := a.clock.Now()
	src, err := a.broadcastSource(ctx, tx, b)
	if err != nil {
		var ce *carteiro.Error
		if errors.As(err, &ce) {
			// The template was deleted or deactivated: nothing more can be
			// rendered; the broadcast fails (D43).
			b.Status, b.UpdatedAt = carteiro.BroadcastFailed, now
			_, err = tx.SetBroadcastStatus(ctx, b, carteiro.BroadcastSending)
		}
		return false, err
	}
	domainID := ""
	if b.Mode == carteiro.ModeLive {
		if domainID, err = a.senderDomain(ctx, b.OrgID, b.From.Email); err != nil {
			b.Status, b.UpdatedAt = carteiro.BroadcastFailed, now
			_, err = tx.SetBroadcastStatus(ctx, b, carteiro.BroadcastSending)
			return false, err
		}
	}
	contacts, err := tx.ContactsAfter(ctx, b.AudienceID, b.CursorCreatedAt, b.CursorID, fanOutChunk)
	if err != nil {
		return false, err
	}
	keys := make([]string, len(contacts))
	for i, c := range contacts {
		keys[i] = strings.ToLower(c.Email)
	}
	suppressed := map[string]bool{}
	if len(keys) > 0 {
		if suppressed, err = tx.SuppressedAmong(ctx, b.OrgID, keys, []string{CategoryAll, CategoryMarketing}, now); err != nil {
			return false, err
		}
	}
	var resumeAt *time.Time
	var warmup warmupLedger
	// The step's emails, their first events and their delivery jobs are
	// written with one multi-row statement per table at the end.
	deliveries := make([]Job, 0, len(contacts))
	emails := make([]*carteiro.Email, 0, len(contacts))
	events := make([]*carteiro.EmailEvent, 0, len(contacts))
	var failures []emailEvents
	for i, c := range contacts {
		if suppressed[keys[i]] {
			b.RecipientsFailed++
			b.CursorCreatedAt, b.CursorID = c.CreatedAt.UnixMicro(), c.ID
			continue
		}
		e, err := a.broadcastEmail(ctx, b, src, c, domainID, now)
		if err != nil {
			reason, ok := personalisationFailure(err)
			if !ok {
				return false, err // the step is retried: the contact is not lost
			}
			// A contact whose personalisation cannot render gets its email
			// failed with the error (D37), the others go on.
			failed := a.unrenderedBroadcastEmail(b, c, domainID, reason, now)
			emails = append(emails, failed)
			failures = append(failures, emailEvents{failed, []*carteiro.EmailEvent{a.event(failed.ID, carteiro.EventFailed, now, map[string]any{"recipient": c.Email, "error": reason})}})
			b.RecipientsFailed++
			b.CursorCreatedAt, b.CursorID = c.CreatedAt.UnixMicro(), c.ID
			continue
		}
		if err := warmup.take(ctx, a, tx, e); err != nil {
			var ce *carteiro.Error
			if errors.As(err, &ce) && ce.Code == carteiro.CodeWarmupQuotaExceeded {
				// The domain's quota for today is used up: pause here and
				// resume with this contact tomorrow (D34).
				next := utcDay(now).Add(24 * time.Hour)
				resumeAt = &next
				break
			}
			return false, err
		}
		emails = append(emails, e)
		events = append(events, a.event(e.ID, carteiro.EventQueued, e.CreatedAt, nil))
		deliveries = append(deliveries, DeliverJob{EmailID: e.ID})
		b.RecipientsQueued++
		b.CursorCreatedAt, b.CursorID = c.CreatedAt.UnixMicro(), c.ID
	}
	if err := warmup.flush(ctx, tx); err != nil {
		return false, err
	}
	if err := tx.InsertEmails(ctx, emails); err != nil {
		return false, err
	}
	if err := tx.InsertEvents(ctx, events); err != nil {
		return false, err
	}
	// Failures are recorded as delivery failures are: counted in the
	// statistics and sent to the webhooks, all of the step's at once.
	if len(failures) > 0 {
		if err := a.recordEventsOf(ctx, tx, failures); err != nil {
			return false, err
		}
	}
	if err := a.queue.EnqueueManyTx(ctx, tx, deliveries, JobOpts{Priority: broadcastPriority}); err != nil {
		return false, err
	}
	b.UpdatedAt = now
	switch {
	case resumeAt != nil:
		if err := a.queue.EnqueueTx(ctx, tx, FanOutJob{BroadcastID: b.ID}, JobOpts{ScheduledAt: *resumeAt, Queue: BroadcastQueue}); err != nil {
			return false, err
		}
	case len(contacts) == fanOutChunk && !last:
		more = true
	case len(contacts) == fanOutChunk:
		if err := a.queue.EnqueueTx(ctx, tx, FanOutJob{BroadcastID: b.ID}, JobOpts{Queue: BroadcastQueue}); err != nil {
			return false, err
		}
	default:
		// Every contact was handed over (D43): the total becomes what was
		// actually walked, whatever the audience did meanwhile.
		b.Status, b.SentAt = carteiro.BroadcastSent, &now
		b.RecipientsTotal = b.RecipientsQueued + b.RecipientsFailed
	}
	if b.RecipientsTotal < b.RecipientsQueued+b.RecipientsFailed {
		b.RecipientsTotal = b.RecipientsQueued + b.RecipientsFailed
	}
	_, err = tx.SetBroadcastStatus(ctx, b, carteiro.BroadcastSending)
	return more, err
}

// broadcastSource is what every recipient's email renders from: the
// template, or the broadcast's own html/text; the subject is the
// broadcast's (D42).
func (a *App) broadcastSource(ctx context.Context, tx *store.Tx, b *carteiro.Broadcast) (carteiro.TemplateSource, error) {
	subject := b.Subject
	if b.TemplateID == nil {
		src := carteiro.TemplateSource{Format: carteiro.TemplateHandlebars, Subject: &subject, Text: b.Text}
		if b.HTML != nil {
			src.HTML = *b.HTML
		}
		return src, nil
	}
	t, err := tx.Template(ctx, b.OrgID, *b.TemplateID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return carteiro.TemplateSource{}, carteiro.Invalid("templateId", "invalid_value")
	case err != nil:
		return carteiro.TemplateSource{}, err
	case !t.IsActive:
		return carteiro.TemplateSource{}, carteiro.Invalid("templateId", "inactive")
	}
	src := t.Source()
	src.Subject = &subject
	return src, nil
}

// broadcastEmail renders one contact's email (D42): the contact's fields
// and unsubscribeUrl over the broadcast's variables, with the RFC 8058
// unsubscribe headers (D43).
func (a *App) broadcastEmail(ctx context.Context, b *carteiro.Broadcast, src carteiro.TemplateSource, c *carteiro.Contact, domainID string, now time.Time) (*carteiro.Email, error) {
	unsubscribe := a.unsubscribeURL(b.OrgID, c.Email, b.ID)
	vars := make(map[string]any, len(b.Variables)+2)
	for k, v := range b.Variables {
		vars[k] = v
	}
	meta, err := c.Metadata.Map()
	if err != nil {
		return nil, fmt.Errorf("contact %s metadata: %w", c.ID, err)
	}
	vars["contact"] = map[string]any{"email": c.Email, "firstName": derefOr(c.FirstName), "lastName": derefOr(c.LastName), "metadata": meta}
	vars["unsubscribeUrl"] = unsubscribe
	out, err := a.templates.Render(ctx, src, vars)
	if err != nil {
		return nil, templateErr(err)
	}
	if out.Subject == "" || carteiro.ValidateSubject(out.Subject) != nil {
		return nil, carteiro.Invalid("subject", "invalid_value")
	}
	e := &carteiro.Email{ID: uuid.Must(uuid.NewV7()).String(), OrgID: b.OrgID, Mode: b.Mode, Sandbox: b.Mode == carteiro.ModeTest,
		DomainID: domainID, From: b.From, To: []carteiro.Address{{Email: c.Email}}, Subject: out.Subject, HTML: out.HTML, Text: out.Text,
		Headers: map[string]string{
			"List-Unsubscribe":      "<" + unsubscribe + ">",
			"List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
		},
		BroadcastID: b.ID, Status: carteiro.EmailQueued, CreatedAt: now}
	if b.ReplyTo != nil {
		e.ReplyTo = []carteiro.Address{*b.ReplyTo}
	}
	if src.HTML == "" {
		e.HTML = "" // a text-only broadcast
	}
	return e, nil
}

// personalisationFailure tells whether err is one contact's email failing
// to render (a template error, or a subject that renders invalid for this
// contact), and the error to record on that email. Any other error, a
// cancelled context or the database, is not the contact's fault.
func personalisationFailure(err error) (string, bool) {
	var ce *carteiro.Error
	if !errors.As(err, &ce) {
		return "", false
	}
	switch ce.Code {
	case carteiro.CodeTemplateRenderError, carteiro.CodeTemplateSyntaxError:
		reason := ce.Code
		if r, ok := ce.Details["reason"].(string); ok && r != "" {
			reason += ": " + r
		}
		return reason, true
	case carteiro.CodeValidation:
		if ce.Field == "subject" {
			return "the subject rendered for this contact is invalid (empty, too long or with a line break)", true
		}
	}
	return "", false
}

// unrenderedBroadcastEmail is the failed email of a contact whose email
// could not render: it keeps the broadcast's subject as written and no
// content, so GET /emails shows the contact and the reason.
func (a *App) unrenderedBroadcastEmail(b *carteiro.Broadcast, c *carteiro.Contact, domainID, reason string, now time.Time) *carteiro.Email {
	e := &carteiro.Email{ID: uuid.Must(uuid.NewV7()).String(), OrgID: b.OrgID, Mode: b.Mode, Sandbox: b.Mode == carteiro.ModeTest,
		DomainID: domainID, From: b.From, To: []carteiro.Address{{Email: c.Email}}, Subject: b.Subject,
		BroadcastID: b.ID, Status: carteiro.EmailFailed, LastError: reason, FailedAt: &now, CreatedAt: now}
	if b.ReplyTo != nil {
		e.ReplyTo = []carteiro.Address{*b.ReplyTo}
	}
	return e
}

func derefOr(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}
