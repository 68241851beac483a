package app

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// handover turns one chunk's contacts into emails and delivery jobs: render
// runs before the chunk's transaction, write inside it, with one multi-row
// statement per table (D42, D45, D34).
type handover struct {
	a        *App
	b        *carteiro.Broadcast
	chunk    *store.BroadcastChunk
	domainID string
	now      time.Time
	// contacts are the chunk's contacts in walking order, each with its
	// rendered email, or the reason it could not render.
	contacts []chunkContact

	deliveries []string // the emails handed to delivery
	failed     int64
	failures   []emailEvents // the unrenderable contacts' failed emails
	// resumeAt is set when the domain's warmup quota for today ran out;
	// last is then the last contact handed over or refused.
	resumeAt *time.Time
	last     store.ContactKey
}

// chunkContact is one contact of a chunk and what it is sent (not a
// carteiro.Recipient: it has no row until its email is written).
type chunkContact struct {
	contact *carteiro.Contact
	key     string // the lower-case email, as suppressions hold it
	email   *carteiro.Email
	// unrendered is why the contact's personalisation could not render;
	// email is then the failed email that records it (D37).
	unrendered string
}

// render prepares every contact's email.
func (h *handover) render(ctx context.Context, src carteiro.TemplateSource, contacts []*carteiro.Contact) error {
	h.contacts = make([]chunkContact, len(contacts))
	for i, c := range contacts {
		r := chunkContact{contact: c, key: strings.ToLower(c.Email)}
		e, err := h.a.broadcastEmail(ctx, h.b, src, c, h.domainID, h.now)
		if err != nil {
			reason, ok := personalisationFailure(err)
			if !ok {
				return err // the chunk is retried: the contact is not lost
			}
			r.unrendered = reason
			e = h.a.unrenderedBroadcastEmail(h.b, c, h.domainID, reason, h.now)
		}
		r.email = e
		h.contacts[i] = r
	}
	return nil
}

// write hands the rendered emails over in order until they are all handed
// over or the warmup quota stops it. Suppressions are read here, in the
// transaction, so one added before it commits is honoured.
func (h *handover) write(ctx context.Context, tx *store.Tx) error {
	a := h.a
	h.failed, h.failures, h.resumeAt, h.last = 0, nil, nil, h.chunk.After
	keys := make([]string, len(h.contacts))
	for i, r := range h.contacts {
		keys[i] = r.key
	}
	suppressed := map[string]bool{}
	if len(keys) > 0 {
		var err error
		if suppressed, err = tx.SuppressedAmong(ctx, h.b.OrgID, keys, []string{CategoryAll, CategoryMarketing}, h.now); err != nil {
			return err
		}
	}
	var warmup warmupLedger
	h.deliveries = make([]string, 0, len(h.contacts))
	emails := make([]*carteiro.Email, 0, len(h.contacts))
	events := make([]*carteiro.EmailEvent, 0, len(h.contacts))
	var failures []emailEvents
	for _, r := range h.contacts {
		switch {
		case suppressed[r.key]:
			h.refused(r.contact)
			continue
		case r.unrendered != "":
			// A contact whose personalisation cannot render gets its email
			// failed with the error (D37), the others go on.
			emails = append(emails, r.email)
			failures = append(failures, emailEvents{r.email, []*carteiro.EmailEvent{newEvent(r.email.ID, carteiro.EventFailed, h.now,
				map[string]any{"recipient": r.contact.Email, "error": r.unrendered})}})
			h.refused(r.contact)
			continue
		}
		if err := warmup.take(ctx, a, tx, r.email); err != nil {
			var ce *carteiro.Error
			if errors.As(err, &ce) && ce.Code == carteiro.CodeWarmupQuotaExceeded {
				// The domain's quota for today is used up: pause here and
				// resume with this contact tomorrow (D34).
				next := utcDay(h.now).Add(24 * time.Hour)
				h.resumeAt = &next
				break
			}
			return err
		}
		emails = append(emails, r.email)
		events = append(events, newEvent(r.email.ID, carteiro.EventQueued, r.email.CreatedAt, nil))
		h.deliveries = append(h.deliveries, r.email.ID)
		h.last = contactKey(r.contact)
	}
	if err := warmup.flush(ctx, tx); err != nil {
		return err
	}
	if err := tx.InsertEmails(ctx, emails); err != nil {
		return err
	}
	if err := tx.InsertEvents(ctx, events); err != nil {
		return err
	}
	h.failures = failures
	return a.queue.EnqueueManyTx(ctx, tx, deliverGroups(h.deliveries, true), JobOpts{Priority: backgroundPriority})
}

// recordFailures records the failed emails' events as delivery failures
// are: counted in the statistics and sent to the webhooks, all of the
// chunk's at once. It runs after the broadcast's row is taken: a cancel
// holds that row while it waits for deliveries' email rows, and a delivery
// holds its email row while it waits for the statistics rows, so taking
// statistics rows before the broadcast's row could close a deadlock.
func (h *handover) recordFailures(ctx context.Context, tx *store.Tx) error {
	if len(h.failures) == 0 {
		return nil
	}
	return h.a.recordEventsOf(ctx, tx, h.failures)
}

// refused counts a contact that gets no email: suppressed, or whose email
// could not render (D43's recipientsFailed).
func (h *handover) refused(c *carteiro.Contact) {
	h.failed++
	h.last = contactKey(c)
}

func contactKey(c *carteiro.Contact) store.ContactKey {
	return store.ContactKey{CreatedAt: c.CreatedAt.UnixMicro(), ID: c.ID}
}
