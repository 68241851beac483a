package app

import (
	"context"
	"crypto"
	"crypto/rsa"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/bounce"
	"github.com/carteiro/carteiro/internal/dkim"
	"github.com/carteiro/carteiro/internal/mta"
	"github.com/carteiro/carteiro/internal/render"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/tracking"
)

// retrySchedule is D23's backoff after temporary failures: 1, 5, 15 and 30
// minutes, then hourly, until the retry window closes.
var retrySchedule = []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, 30 * time.Minute}

func retryDelay(attempt int) time.Duration {
	if attempt >= 1 && attempt <= len(retrySchedule) {
		return retrySchedule[attempt-1]
	}
	return time.Hour
}

// deliverEmail makes one delivery attempt of every recipient not yet
// final; firstOnly leaves an email alone once the outcome of its first
// attempt was recorded (a group job's re-run, firstAttemptDone). Outcomes, events and the next retry are recorded in
// one transaction after the SMTP conversation; a crash between the two
// repeats at most that one attempt.
func (a *App) deliverEmail(ctx context.Context, emailID string, firstOnly bool) error {
	var (
		e          *carteiro.Email
		recipients []*carteiro.Recipient
		domain     *carteiro.Domain
	)
	err := a.beforeSending(ctx, func() (err error) {
		e, recipients, domain, err = a.store.EmailForDelivery(ctx, emailID)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if firstOnly && firstAttemptDone(recipients) {
		return nil
	}
	switch e.Status {
	case carteiro.EmailScheduled:
		// Its time has come (D21): scheduled becomes queued, unless a cancel
		// won the race.
		ok, err := a.store.SetEmailStatusIf(ctx, e.ID, carteiro.EmailScheduled, carteiro.EmailQueued)
		if err != nil || !ok {
			return err
		}
		e.Status = carteiro.EmailQueued
	case carteiro.EmailQueued, carteiro.EmailProcessing:
		// A broadcast's cancel cancels its queued emails (D43). An attempt
		// claims its email only if it is still queued or processing
		// (BeginAttempt below; a simulated one in the transaction that
		// records it), so the email is either cancelled or in flight.
	default:
		return nil // cancelled, or every recipient is final
	}
	if e.Sandbox {
		return a.simulate(ctx, e)
	}
	var pending []*carteiro.Recipient
	for _, r := range recipients {
		if r.Status == carteiro.RecipientPending || r.Status == carteiro.RecipientDeferred {
			pending = append(pending, r)
		}
	}
	if len(pending) == 0 {
		return nil
	}

	data, err := a.message(e, domain)
	if err != nil {
		// Nothing can be sent (for example the domain's key is gone): the
		// email fails for every pending recipient, no retry.
		return a.failAll(ctx, e, pending, err.Error())
	}
	now := a.clock.Now()
	e.Attempts++
	e.Status = carteiro.EmailProcessing
	var started bool
	err = a.beforeSending(ctx, func() (err error) {
		started, err = a.store.BeginAttempt(ctx, e, now, newEvent(e.ID, carteiro.EventProcessing, now, map[string]any{"attempt": e.Attempts}))
		return err
	})
	if err != nil || !started {
		return err // !started: cancelled meanwhile
	}

	// From the suppression check to the end of the SMTP conversation the
	// delivery gate is held, so no suppression of these addresses commits
	// in between: nobody receives mail after their suppression committed.
	addrs := make([]string, len(pending))
	for i, r := range pending {
		addrs[i] = r.Address
	}
	var gate *store.DeliveryGate
	err = a.beforeSending(ctx, func() (err error) {
		gate, err = a.store.HoldForDelivery(ctx, e.OrgID, addrs)
		return err
	})
	if err != nil {
		return err
	}
	keep, dropEvents, err := a.splitSuppressed(ctx, gate, e, pending)
	if err != nil {
		gate.Release()
		return err
	}
	var results []mta.Result
	if len(keep) > 0 {
		// D65: each recipient its own transaction and return path, so a
		// report can only change the recipient whose return path it reached;
		// the message bytes (and their one DKIM signature) are shared.
		// D80: a broadcast's email lets transactional email go first when
		// both wait for a connection to one destination.
		env := mta.Envelope{EnvelopeID: e.ID, Background: e.BroadcastID != ""}
		for _, r := range keep {
			env.Recipients = append(env.Recipients, r.Address)
			env.ReturnPaths = append(env.ReturnPaths, a.returnPathFor(e, r))
		}
		began := time.Now() // real time, whatever the injected clock says
		results = a.transport.Deliver(ctx, env, data)
		a.logAttempt(ctx, e.ID, results, time.Since(began))
	} else {
		e.Attempts-- // no SMTP attempt was made
	}
	gate.Release()
	return a.recordAttempt(ctx, e, recipients, pending, keep, results, dropEvents)
}

// message builds and signs the MIME message of e, sent from domain (nil
// for a verified single sender, or when e's domain is gone).
func (a *App) message(e *carteiro.Email, domain *carteiro.Domain) ([]byte, error) {
	text := e.Text
	if text == "" && e.HTML != "" {
		text = render.HTMLToText(e.HTML) // D20: a plain-text part is generated
	}
	if e.MessageID == "" { // a submitted message may bring its own (D74)
		e.MessageID = e.ID + "@" + carteiro.DomainOf(e.From.Email)
	}
	html := e.HTML
	if html != "" && a.cfg.Tracking {
		// D53: links rewritten and the open pixel added at send time.
		html = tracking.Instrument(html, e.ID, a.cfg.PublicURL, a.box, tracking.Options{Open: true, Click: true})
	}
	raw, err := mta.Build(&mta.Message{
		MessageID: e.MessageID, Date: a.clock.Now(), From: e.From, To: e.To, Cc: e.Cc, ReplyTo: e.ReplyTo,
		Subject: e.Subject, HTML: html, Text: text, Headers: e.Headers, Attachments: e.Attachments,
	})
	if err != nil {
		return nil, fmt.Errorf("build message: %w", err)
	}
	if e.DomainID == "" {
		return raw, nil // a verified single sender has no DKIM key of ours
	}
	if domain == nil {
		return nil, errors.New("sending domain: deleted")
	}
	signer, err := a.dkimKey(domain)
	if err != nil {
		return nil, err
	}
	signed, err := (&mta.DKIMSigner{Domain: domain.Name, Selector: domain.DKIMSelector, Key: signer}).Sign(raw)
	if err != nil {
		return nil, fmt.Errorf("dkim sign: %w", err)
	}
	return signed, nil
}

// dkimKey returns d's DKIM key, opened once and kept.
func (a *App) dkimKey(d *carteiro.Domain) (crypto.Signer, error) {
	a.keysMu.Lock()
	defer a.keysMu.Unlock()
	if k, ok := a.keys[d.ID]; ok {
		return k, nil
	}
	pem, err := a.box.Open(d.DKIMPrivateKey)
	if err != nil {
		return nil, fmt.Errorf("open dkim key: %w", err)
	}
	k, err := dkim.ParsePrivateKey(pem)
	if err != nil {
		return nil, fmt.Errorf("parse dkim key: %w", err)
	}
	if rk, ok := k.(*rsa.PrivateKey); ok && a.rsa != nil {
		// A key the faster signer cannot take still signs, through Go.
		if fast, err := a.rsa.RSASigner(rk); err != nil {
			a.logger.Warn("DKIM key signs with crypto/rsa", "domain", d.Name, "err", err)
		} else {
			k = fast
		}
	}
	a.keys[d.ID] = k
	return k, nil
}

// recordAttempt records one attempt's outcome, as judgeAttempt decides it
// from the per-recipient results. pending are the recipients this run
// started with, attempted those handed to SMTP (the others were
// suppressed, with events already made).
func (a *App) recordAttempt(ctx context.Context, e *carteiro.Email, all, pending, attempted []*carteiro.Recipient, results []mta.Result, events []*carteiro.EmailEvent) error {
	now := a.clock.Now()
	// From here on the store is waited for: the SMTP server has answered.
	rctx, cancel := a.outcomeContext(ctx)
	defer cancel()
	v, err := judgeAttempt(attempt{email: e, all: all, pending: pending, attempted: attempted, results: results, events: events, now: now,
		policy: attemptPolicy{acceptIsDelivery: a.cfg.AcceptIsDelivery, retryWindow: a.cfg.RetryWindow}},
		func() (first *time.Time, err error) {
			err = a.untilStored(rctx, "reading an email's first attempt", func() (err error) {
				first, err = a.store.FirstAttemptAt(rctx, e.ID)
				return err
			})
			return first, err
		})
	if err != nil {
		return err
	}
	outcome := store.Outcome{Email: e, Recipients: pending, Events: v.events}
	// Bounces and retries write statements of their own besides the
	// outcome; the store decides how to commit each kind.
	var own func(tx *store.Tx) error
	if len(v.bounces) > 0 || !v.retryAt.IsZero() {
		own = func(tx *store.Tx) error {
			for _, b := range v.bounces {
				if err := a.suppressForBounce(rctx, tx, e.OrgID, b.Recipient, b); err != nil {
					return err
				}
			}
			if !v.retryAt.IsZero() {
				return a.queue.EnqueueTx(rctx, tx, DeliverJob{EmailID: e.ID, Background: e.BroadcastID != ""}, JobOpts{ScheduledAt: v.retryAt, Priority: deliveryPriority(e)})
			}
			return nil
		}
	}
	return a.untilStored(rctx, "recording a delivery outcome", func() error { return a.recordOutcome(rctx, outcome, own) })
}

// replyReport classifies a permanent SMTP refusal as a DSN's would be
// (D69): who the reply blames decides between a bounce that suppresses
// (hard, block), one that does not (soft, a full mailbox) and a failure of
// the sending side (ClassSender). Its Status is the refined enhanced code.
func replyReport(address string, res mta.Result) bounce.RecipientReport {
	res.Enhanced = bounce.RefineStatus(res.Enhanced, res.Message)
	class := bounce.Classify(res.Enhanced, "failed", res.Summary())
	switch class {
	case bounce.ClassHard, bounce.ClassSoft, bounce.ClassBlock, bounce.ClassSender:
	default:
		class = bounce.ClassHard // a 5xx always ends the recipient
	}
	return bounce.RecipientReport{Recipient: address, Status: res.Enhanced, Code: res.Code, Diagnostic: res.Message, Class: class}
}

// failAll ends an email that cannot be built or signed.
func (a *App) failAll(ctx context.Context, e *carteiro.Email, pending []*carteiro.Recipient, reason string) error {
	now := a.clock.Now()
	a.logger.ErrorContext(ctx, "email cannot be sent", "email_id", e.ID, "err", reason)
	e.Status, e.FailedAt, e.LastError = carteiro.EmailFailed, &now, reason
	var events []*carteiro.EmailEvent
	for _, r := range pending {
		r.Status, r.LastMessage, r.UpdatedAt = carteiro.RecipientFailed, reason, now
		events = append(events, newEvent(e.ID, carteiro.EventFailed, now, map[string]any{"recipient": r.Address, "error": reason}))
	}
	rctx, cancel := a.outcomeContext(ctx)
	defer cancel()
	return a.untilStored(rctx, "recording a failed email", func() error {
		return a.recordOutcome(rctx, store.Outcome{Email: e, Recipients: pending, Events: events}, nil)
	})
}

// deliveryPriority is the queue priority of e's delivery jobs: a
// broadcast's retries stay behind transactional email, as its first
// attempts do (backgroundPriority).
func deliveryPriority(e *carteiro.Email) int {
	return groupPriority(e.BroadcastID != "")
}

// emailStatus applies D24: the least advanced recipient outcome until all
// are final; then bounced if any bounced, else failed if any failed, else
// delivered (suppressed recipients aside; all suppressed is skipped).
func emailStatus(rs []*carteiro.Recipient) carteiro.EmailStatus {
	waiting, sent, bounced, failed, delivered := false, false, false, false, false
	for _, r := range rs {
		switch r.Status {
		case carteiro.RecipientPending, carteiro.RecipientDeferred:
			waiting = true
		case carteiro.RecipientSent:
			sent = true
		case carteiro.RecipientBounced:
			bounced = true
		case carteiro.RecipientFailed:
			failed = true
		case carteiro.RecipientDelivered:
			delivered = true
		}
	}
	switch {
	case waiting:
		return carteiro.EmailQueued
	case sent:
		return carteiro.EmailSent
	case bounced:
		return carteiro.EmailBounced
	case failed:
		return carteiro.EmailFailed
	case delivered:
		return carteiro.EmailDelivered
	}
	return carteiro.EmailSkipped
}

// replyText renders an SMTP reply as lastError and event metadata show it.
func replyText(r mta.Result) string {
	var parts []string
	if r.Code != 0 {
		parts = append(parts, fmt.Sprint(r.Code))
	}
	if r.Enhanced != "" {
		parts = append(parts, r.Enhanced)
	}
	if r.Message != "" {
		parts = append(parts, r.Message)
	}
	return strings.Join(parts, " ")
}
