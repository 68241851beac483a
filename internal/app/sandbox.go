package app

import (
	"context"
	"strings"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// simulate plays a sandbox email's lifecycle (D30): the same statuses,
// timeline and timestamps as a real send, with nothing handed to SMTP. The
// recipient's local part, before any +label, picks the outcome. Sandbox
// outcomes never add suppressions.
func (a *App) simulate(ctx context.Context, e *carteiro.Email) error {
	recipients, err := a.store.Recipients(ctx, e.ID)
	if err != nil {
		return err
	}
	now := a.clock.Now()
	e.Attempts++
	if e.MessageID == "" { // a submitted message may bring its own (D74)
		e.MessageID = e.ID + "@" + carteiro.DomainOf(e.From.Email)
	}
	events := []*carteiro.EmailEvent{newEvent(e.ID, carteiro.EventProcessing, now, map[string]any{"attempt": e.Attempts})}
	add := func(t carteiro.EventType, meta map[string]any) {
		events = append(events, newEvent(e.ID, t, now, meta))
	}
	sent := func(rcpt string) {
		add(carteiro.EventSent, map[string]any{"recipient": rcpt, "mx": "sandbox", "response": "250 2.0.0 simulated"})
		if e.SentAt == nil {
			e.SentAt = &now
		}
	}
	delivered := func(r *carteiro.Recipient) {
		sent(r.Address)
		r.Status = carteiro.RecipientDelivered
		add(carteiro.EventDelivered, map[string]any{"recipient": r.Address})
		e.DeliveredAt = &now
	}
	for _, r := range recipients {
		r.UpdatedAt = now
		switch sandboxOutcome(r.Address) {
		case "bounced":
			sent(r.Address)
			r.Status, r.LastCode, r.LastEnhanced, r.LastMessage = carteiro.RecipientBounced, 550, "5.1.1", "simulated: mailbox does not exist"
			add(carteiro.EventBounced, map[string]any{"recipient": r.Address, "bounceType": "hard", "code": 550,
				"enhancedCode": "5.1.1", "diagnostic": r.LastMessage})
			e.BouncedAt, e.LastError = &now, "550 5.1.1 "+r.LastMessage
		case "complained":
			delivered(r)
			add(carteiro.EventComplained, map[string]any{"recipient": r.Address, "feedbackType": "abuse"})
			e.ComplainedAt = &now
		case "delayed":
			add(carteiro.EventDeliveryDelayed, map[string]any{"recipient": r.Address, "code": 451, "enhancedCode": "4.7.1",
				"diagnostic": "simulated: greylisted"})
			delivered(r)
		case "failed":
			r.Status, r.LastMessage = carteiro.RecipientFailed, "simulated: delivery failed"
			add(carteiro.EventFailed, map[string]any{"recipient": r.Address, "error": r.LastMessage})
			e.FailedAt, e.LastError = &now, r.LastMessage
		case "suppressed":
			r.Status = carteiro.RecipientSuppressed
			add(carteiro.EventSuppressed, map[string]any{"recipient": r.Address})
			e.SuppressedAt = &now
		case "opened", "clicked":
			delivered(r)
			add(carteiro.EventOpened, map[string]any{"userAgent": "Carteiro sandbox"})
			if e.OpenedAt == nil {
				e.OpenedAt = &now
			}
			e.OpenCount++
			if sandboxOutcome(r.Address) == "clicked" {
				add(carteiro.EventClicked, map[string]any{"url": "https://example.com/", "userAgent": "Carteiro sandbox"})
				if e.FirstClickedAt == nil {
					e.FirstClickedAt = &now
				}
				e.ClickCount++
			}
		default:
			delivered(r)
		}
	}
	e.Status = emailStatus(recipients)
	// The outcome claims its email as it is written, as a real attempt's
	// BeginAttempt does: a cancel committed before that wins, and nothing
	// is recorded. Simulated attempts run no statement of their own.
	return a.recordOutcome(ctx, store.Outcome{Email: e, FirstAttemptAt: &now, Recipients: recipients, Events: events, Claim: true}, nil)
}

// sandboxOutcome is the local part before any +label, lowercased.
func sandboxOutcome(address string) string {
	local, _, _ := strings.Cut(address, "@")
	local, _, _ = strings.Cut(local, "+")
	return strings.ToLower(local)
}
