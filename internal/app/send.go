package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// DeliverJob hands one email to SMTP (or, for sandbox emails, simulates it).
type DeliverJob struct {
	EmailID string `json:"emailId"`
	// Background puts the attempt in the background lane: a broadcast's
	// email, which yields delivery slots to transactional email
	// (deliverylane.go).
	Background bool `json:"background,omitempty"`
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
	e, domain, err := a.prepare(ctx, p, r, a.newSenderDomains(p.Org.ID))
	if err != nil {
		return nil, err
	}
	return a.acceptOne(ctx, p, e, domain, r)
}

// acceptOne decides one prepared email and has the store write it:
// concurrent accepts share one commit and its multi-row INSERTs, each
// answered only once that commit is on disk (store.AcceptOne).
func (a *App) acceptOne(ctx context.Context, p *Principal, e *carteiro.Email, domain store.VerifiedDomain, r *SendRequest) (*SendResult, error) {
	acc, res := a.decideAccept(p, e, domain, r)
	results, err := a.store.Accept(ctx, store.AcceptOne, a.deliveryJobs(), []store.AcceptedEmail{acc})
	if err != nil {
		return nil, storeErr(err)
	}
	return acceptAnswer(acc, results[0], res)
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
	items := make([]BatchItem, len(reqs))
	senders := a.newSenderDomains(p.Org.ID)
	budget := newRenderBudget()
	var accepted []store.AcceptedEmail
	var answers []*SendResult
	var itemOf []int // accepted[j] is item itemOf[j]
	for i, r := range reqs {
		e, domain, err := a.prepare(ctx, p, r, senders)
		if err == nil && r.TemplateID != nil {
			// D60: the batch's rendered bytes are bounded; an item past
			// the budget fails alone and its output is let go at once.
			err = budget.take(e)
		}
		if err != nil {
			if IsUnavailable(err) {
				// D11: with the store down nothing of the batch can be
				// accepted; the whole request answers 503 and is retried,
				// as when the commit itself fails, never a 2xx of refusals.
				return nil, err
			}
			items[i].Err = err
			continue
		}
		acc, res := a.decideAccept(p, e, domain, r)
		accepted, answers, itemOf = append(accepted, acc), append(answers, res), append(itemOf, i)
	}
	if len(accepted) == 0 {
		return items, nil
	}
	results, err := a.store.Accept(ctx, store.AcceptBatch, a.deliveryJobs(), accepted)
	if err != nil {
		return nil, storeErr(err)
	}
	for j, i := range itemOf {
		items[i].Result, items[i].Err = acceptAnswer(accepted[j], results[j], answers[j])
	}
	return items, nil
}

// prepare does every check that needs no transaction.
// It returns the email and its sending domain (zero for a sandbox email
// or a verified sender).
func (a *App) prepare(ctx context.Context, p *Principal, r *SendRequest, senders *senderDomains) (*carteiro.Email, store.VerifiedDomain, error) {
	var domain store.VerifiedDomain
	e, err := buildEmail(r, func(id string) (carteiro.RenderedTemplate, error) {
		return a.renderForSend(ctx, p.Org.ID, id, r.Variables)
	})
	if err != nil {
		return nil, domain, err
	}
	now := a.clock.Now()
	if e.ScheduledAt, err = carteiro.ResolveSchedule(now, r.ScheduledAt); err != nil {
		return nil, domain, err
	}
	e.ID = uuid.Must(uuid.NewV7()).String()
	e.OrgID, e.Mode, e.APIKeyID, e.APIKeyName = p.Org.ID, p.Mode(), p.Key.ID, p.Key.Name
	e.Sandbox = r.IsSandbox || p.Mode() == carteiro.ModeTest // D7, D30
	e.IdempotencyKey = r.IdempotencyKey
	e.MessageID = r.MessageID // D74: a submitted message keeps its own
	e.CreatedAt = now
	if err := p.mayUseFrom(e.From.Email, "from"); err != nil {
		return nil, domain, err
	}
	if !e.Sandbox {
		if domain, err = senders.lookup(ctx, e.From.Email); err != nil {
			return nil, domain, err
		}
		e.DomainID = domain.ID
	}
	e.Status = carteiro.EmailQueued
	if e.ScheduledAt != nil {
		e.Status = carteiro.EmailScheduled
	}
	return e, domain, nil
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
	domain store.VerifiedDomain
	err    error
}

func (a *App) newSenderDomains(orgID string) *senderDomains {
	return &senderDomains{app: a, orgID: orgID, seen: map[string]senderAnswer{}}
}

// lookup is senderDomain, remembered per address; store failures are not
// remembered.
func (s *senderDomains) lookup(ctx context.Context, from string) (store.VerifiedDomain, error) {
	key := strings.ToLower(from)
	if ans, ok := s.seen[key]; ok {
		return ans.domain, ans.err
	}
	d, err := s.app.sendingDomain(ctx, s.orgID, from)
	var ce *carteiro.Error
	if err == nil || errors.As(err, &ce) {
		s.seen[key] = senderAnswer{d, err}
	}
	return d, err
}

// senderDomain applies D17: from must be on a verified domain of the
// organization (a subdomain counts), else equal a verified sender whose
// domain no other organization has registered (D59). It
// returns the domain's id, or "" for a verified sender.
func (a *App) senderDomain(ctx context.Context, orgID, from string) (string, error) {
	d, err := a.sendingDomain(ctx, orgID, from)
	return d.ID, err
}

// sendingDomain is senderDomain with the domain's warmup start, read in
// the same statement, which the warmup quota is worked out from (D34).
func (a *App) sendingDomain(ctx context.Context, orgID, from string) (store.VerifiedDomain, error) {
	var none store.VerifiedDomain
	candidates := carteiro.SenderDomainCandidates(carteiro.DomainOf(from))
	verified, err := a.store.VerifiedSendingDomains(ctx, orgID, candidates)
	if err != nil {
		return none, storeErr(err)
	}
	for _, name := range candidates { // longest first: the closest domain signs
		if d, ok := verified[name]; ok {
			return d, nil
		}
	}
	s, err := a.store.SenderByEmail(ctx, orgID, strings.ToLower(from))
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return none, storeErr(err)
	}
	if err == nil && s.VerifiedAt != nil && s.Active {
		// A verified sender stops sending once another organization
		// registers its domain (D59).
		taken, err := a.domainOfAnotherOrganization(ctx, orgID, from)
		if err != nil {
			return none, err
		}
		if !taken {
			return none, nil
		}
	}
	return none, &carteiro.Error{Code: carteiro.CodeDomainNotVerified, Details: map[string]any{"field": "from"}}
}

// decideAccept decides what accepting a prepared email writes: its first
// event, the answer recorded for its idempotency key (D22) and its count
// against the warmup quota (D34). The store checks the key and the quota
// in the transaction (store.Accept); res is the answer when it writes.
func (a *App) decideAccept(p *Principal, e *carteiro.Email, domain store.VerifiedDomain, r *SendRequest) (store.AcceptedEmail, *SendResult) {
	first := carteiro.EventQueued
	if e.Status == carteiro.EmailScheduled {
		first = carteiro.EventScheduled
	}
	acc := store.AcceptedEmail{Email: e, Event: newEvent(e.ID, first, e.CreatedAt, nil), Warmup: a.warmupCharge(e, domain)}
	res := &SendResult{ID: e.ID, Status: e.Status, QueuedAt: e.CreatedAt}
	if r.IdempotencyKey != "" {
		now := a.clock.Now()
		body, _ := json.Marshal(res)
		acc.Idempotency = &store.IdempotencyRecord{OrgID: p.Org.ID, Mode: p.Mode(), Endpoint: endpointSend, Key: r.IdempotencyKey,
			RequestHash: r.BodyHash, ResponseStatus: 202, ResponseBody: string(body), CreatedAt: now}
		acc.ReplaySince = now.Add(-idempotencyWindow)
	}
	return acc, res
}

// acceptAnswer is the answer to an accepted email once the store has
// checked it: res when it was written, the recorded answer replayed for a
// live idempotency key used with the same body, else the error (D22, D34).
func acceptAnswer(acc store.AcceptedEmail, got store.AcceptResult, res *SendResult) (*SendResult, error) {
	switch {
	case got.Replayed != nil:
		if got.Replayed.RequestHash != acc.Idempotency.RequestHash {
			return nil, &carteiro.Error{Code: carteiro.CodeIdempotencyReused}
		}
		var prev SendResult
		if err := json.Unmarshal([]byte(got.Replayed.ResponseBody), &prev); err != nil {
			return nil, storeErr(fmt.Errorf("app: recorded answer of an idempotency key: %w", err))
		}
		prev.Replayed = true
		return &prev, nil
	case got.OverQuota:
		return nil, warmupExceeded(*acc.Warmup)
	}
	return res, nil
}

// newEvent builds a timeline event with a time-ordered id.
func newEvent(emailID string, t carteiro.EventType, at time.Time, meta map[string]any) *carteiro.EmailEvent {
	return &carteiro.EmailEvent{ID: uuid.Must(uuid.NewV7()).String(), EmailID: emailID, Type: t, Timestamp: at, Metadata: meta}
}
