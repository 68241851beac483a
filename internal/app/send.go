package app

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// DeliverJob hands one email to SMTP (or, for sandbox emails, simulates it).
type DeliverJob struct {
	EmailID string `json:"emailId"`
	// Broadcast marks a broadcast's email, whose attempt yields delivery
	// slots to transactional email (deliverySlots).
	Broadcast bool `json:"broadcast,omitempty"`
}

// Kind names the job.
func (DeliverJob) Kind() string { return "deliver_email" }

// idempotencyWindow is how long a key is remembered (D22).
const idempotencyWindow = 24 * time.Hour

const endpointSend = "POST /emails"

// SendEmail accepts one email: validated, checked against the sender rules
// and the warmup quota, then written with its timeline's first event, its
// idempotency record and its delivery job in one transaction (accepted
// means durable).
func (a *App) SendEmail(ctx context.Context, p *Principal, r *SendRequest) (*SendResult, error) {
	a.accepts.enter()
	defer a.accepts.leave()
	e, err := a.prepare(ctx, p, r, a.newSenderDomains(p.Org.ID))
	if err != nil {
		return nil, err
	}
	return a.acceptOne(ctx, p, e, r)
}

// acceptOne admits one prepared email and has the store write it:
// concurrent accepts share one commit and its multi-row INSERTs, each
// answered only once that commit is on disk (store.AcceptOne).
func (a *App) acceptOne(ctx context.Context, p *Principal, e *carteiro.Email, r *SendRequest) (*SendResult, error) {
	var res *SendResult
	err := a.store.Accept(ctx, store.AcceptOne, a.deliveryJobs(), func(tx *store.Tx) (store.Acceptance, error) {
		var w acceptance
		var err error
		if res, err = a.admit(ctx, tx, p, e, r, &w); err != nil {
			return store.Acceptance{}, err
		}
		return w.decided(ctx, tx)
	})
	if err != nil {
		return nil, storeErr(err)
	}
	return res, nil
}

// BatchItem is one answer of POST /emails/batch.
type BatchItem struct {
	Result *SendResult
	Err    error
}

// SendBatch accepts each item on its own: a failed item does not fail the
// batch (4.1). Valid items commit together in one transaction, their rows
// and jobs written with multi-row statements.
func (a *App) SendBatch(ctx context.Context, p *Principal, reqs []*SendRequest) ([]BatchItem, error) {
	a.accepts.enter()
	defer a.accepts.leave()
	emails := make([]*carteiro.Email, len(reqs))
	prepErrs := make([]error, len(reqs))
	senders := a.newSenderDomains(p.Org.ID)
	budget := newRenderBudget()
	for i, r := range reqs {
		emails[i], prepErrs[i] = a.prepare(ctx, p, r, senders)
		if prepErrs[i] == nil && r.TemplateID != nil {
			// D60: the batch's rendered bytes are bounded; an item past
			// the budget fails alone and its output is let go at once.
			if prepErrs[i] = budget.take(emails[i]); prepErrs[i] != nil {
				emails[i] = nil
			}
		}
	}
	var items []BatchItem
	err := a.store.Accept(ctx, store.AcceptBatch, a.deliveryJobs(), func(tx *store.Tx) (store.Acceptance, error) {
		items = make([]BatchItem, len(reqs))
		var w acceptance
		for i, r := range reqs {
			if prepErrs[i] != nil {
				items[i].Err = prepErrs[i]
				continue
			}
			res, err := a.admit(ctx, tx, p, emails[i], r, &w)
			var ce *carteiro.Error
			if errors.As(err, &ce) {
				items[i].Err = ce
				continue
			}
			if err != nil {
				return store.Acceptance{}, err
			}
			items[i].Result = res
		}
		return w.decided(ctx, tx)
	})
	if err != nil {
		return nil, storeErr(err)
	}
	return items, nil
}

// prepare does every check that needs no transaction.
func (a *App) prepare(ctx context.Context, p *Principal, r *SendRequest, senders *senderDomains) (*carteiro.Email, error) {
	e, err := buildEmail(r, func(id string) (carteiro.RenderedTemplate, error) {
		return a.renderForSend(ctx, p.Org.ID, id, r.Variables)
	})
	if err != nil {
		return nil, err
	}
	now := a.clock.Now()
	if e.ScheduledAt, err = carteiro.ResolveSchedule(now, r.ScheduledAt); err != nil {
		return nil, err
	}
	e.ID = uuid.Must(uuid.NewV7()).String()
	e.OrgID, e.Mode, e.APIKeyID, e.APIKeyName = p.Org.ID, p.Mode(), p.Key.ID, p.Key.Name
	e.Sandbox = r.IsSandbox || p.Mode() == carteiro.ModeTest // D7, D30
	e.IdempotencyKey = r.IdempotencyKey
	e.MessageID = r.MessageID // D74: a submitted message keeps its own
	e.CreatedAt = now
	if err := p.mayUseFrom(e.From.Email, "from"); err != nil {
		return nil, err
	}
	if !e.Sandbox {
		if e.DomainID, err = senders.lookup(ctx, e.From.Email); err != nil {
			return nil, err
		}
	}
	e.Status = carteiro.EmailQueued
	if e.ScheduledAt != nil {
		e.Status = carteiro.EmailScheduled
	}
	return e, nil
}

// senderDomains answers senderDomain for the emails of one request: they
// are checked at the same moment, so one look-up per sender serves a whole
// batch instead of one per item.
type senderDomains struct {
	app   *App
	orgID string
	seen  map[string]senderAnswer
}

type senderAnswer struct {
	domainID string
	err      error
}

func (a *App) newSenderDomains(orgID string) *senderDomains {
	return &senderDomains{app: a, orgID: orgID, seen: map[string]senderAnswer{}}
}

// lookup is senderDomain, remembered per address; store failures are not
// remembered.
func (s *senderDomains) lookup(ctx context.Context, from string) (string, error) {
	key := strings.ToLower(from)
	if ans, ok := s.seen[key]; ok {
		return ans.domainID, ans.err
	}
	id, err := s.app.senderDomain(ctx, s.orgID, from)
	var ce *carteiro.Error
	if err == nil || errors.As(err, &ce) {
		s.seen[key] = senderAnswer{id, err}
	}
	return id, err
}

// senderDomain applies D17: from must be on a verified domain of the
// organization (a subdomain counts), else equal a verified sender whose
// domain no other organization has registered (D59). It
// returns the domain's id, or "" for a verified sender.
func (a *App) senderDomain(ctx context.Context, orgID, from string) (string, error) {
	candidates := carteiro.SenderDomainCandidates(carteiro.DomainOf(from))
	verified, err := a.store.VerifiedDomainsNamed(ctx, orgID, candidates)
	if err != nil {
		return "", storeErr(err)
	}
	for _, name := range candidates { // longest first: the closest domain signs
		if id, ok := verified[name]; ok {
			return id, nil
		}
	}
	s, err := a.store.SenderByEmail(ctx, orgID, strings.ToLower(from))
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return "", storeErr(err)
	}
	if err == nil && s.VerifiedAt != nil && s.Active {
		// A verified sender stops sending once another organization
		// registers its domain (D59).
		taken, err := a.domainOfAnotherOrganization(ctx, orgID, from)
		if err != nil {
			return "", err
		}
		if !taken {
			return "", nil
		}
	}
	return "", &carteiro.Error{Code: carteiro.CodeDomainNotVerified, Details: map[string]any{"field": "from"}}
}

// acceptance gathers what one request's accepted emails write, so that a
// batch writes each table with one multi-row statement instead of one per
// email.
type acceptance struct {
	store.Acceptance
	warmup warmupLedger
}

// decided records the warmup counts in tx and returns the rows for the
// store to write (store.Accept).
func (w *acceptance) decided(ctx context.Context, tx *store.Tx) (store.Acceptance, error) {
	if err := w.warmup.flush(ctx, tx); err != nil {
		return store.Acceptance{}, err
	}
	return w.Acceptance, nil
}

// admit decides one prepared email inside tx: a replay of its idempotency
// key (D22), refused by the warmup quota (D34), or accepted, in which case
// its rows and job join w and its idempotency record is written at once
// (so a later item of the same batch with the same key replays it).
func (a *App) admit(ctx context.Context, tx *store.Tx, p *Principal, e *carteiro.Email, r *SendRequest, w *acceptance) (*SendResult, error) {
	if r.IdempotencyKey != "" {
		prev, err := tx.Idempotency(ctx, p.Org.ID, p.Mode(), endpointSend, r.IdempotencyKey)
		switch {
		case err == nil && prev.CreatedAt.After(a.clock.Now().Add(-idempotencyWindow)):
			if prev.RequestHash != r.BodyHash {
				return nil, &carteiro.Error{Code: carteiro.CodeIdempotencyReused}
			}
			var res SendResult
			if err := json.Unmarshal([]byte(prev.ResponseBody), &res); err != nil {
				return nil, err
			}
			res.Replayed = true
			return &res, nil
		case err == nil:
			// Older than the window: forget it and accept anew.
			if err := tx.DeleteIdempotencyKey(ctx, p.Org.ID, endpointSend, r.IdempotencyKey); err != nil {
				return nil, err
			}
		case !errors.Is(err, store.ErrNotFound):
			return nil, err
		}
	}
	if err := w.warmup.take(ctx, a, tx, e); err != nil {
		return nil, err
	}
	first := carteiro.EventQueued
	if e.Status == carteiro.EmailScheduled {
		first = carteiro.EventScheduled
	}
	w.Emails = append(w.Emails, e)
	w.Events = append(w.Events, newEvent(e.ID, first, e.CreatedAt, nil))
	res := &SendResult{ID: e.ID, Status: e.Status, QueuedAt: e.CreatedAt}
	if r.IdempotencyKey != "" {
		body, _ := json.Marshal(res)
		if err := tx.InsertIdempotency(ctx, &store.IdempotencyRecord{OrgID: p.Org.ID, Mode: p.Mode(), Endpoint: endpointSend, Key: r.IdempotencyKey,
			RequestHash: r.BodyHash, ResponseStatus: 202, ResponseBody: string(body), CreatedAt: a.clock.Now()}); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// newEvent builds a timeline event with a time-ordered id.
func newEvent(emailID string, t carteiro.EventType, at time.Time, meta map[string]any) *carteiro.EmailEvent {
	return &carteiro.EmailEvent{ID: uuid.Must(uuid.NewV7()).String(), EmailID: emailID, Type: t, Timestamp: at, Metadata: meta}
}
