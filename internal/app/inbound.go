package app

import (
	"context"
	"errors"
	"strings"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/bounce"
	"github.com/carteiro/carteiro/internal/store"
)

// AcceptsDomain tells the inbound listener which recipient domains are
// ours: the bounce host and bounces.<a registered domain> (D31, D55), and
// the verified domains whose inbound is on (D75). Every other domain is
// refused, so the listener is never an open relay.
func (a *App) AcceptsDomain(ctx context.Context, domain string) bool {
	domain = strings.ToLower(strings.TrimSuffix(domain, "."))
	if domain == strings.ToLower(a.cfg.BounceHost) {
		return true
	}
	if a.receivesFor(ctx, domain) {
		return true
	}
	name, ok := strings.CutPrefix(domain, "bounces.")
	if !ok {
		return false
	}
	found, err := a.store.DomainNameRegistered(ctx, name)
	if err != nil {
		// Refusing would lose a bounce for good; accepting a stranger's
		// mail costs one parse before it is dropped.
		a.logger.ErrorContext(ctx, "inbound: domain lookup failed; accepting", "domain", domain, "err", err)
		return true
	}
	return found
}

// Deliver takes one message received by the inbound listener: mail to a
// List-Unsubscribe mailto address unsubscribes (D71), the rest is read as
// a bounce or complaint.
func (a *App) Deliver(ctx context.Context, from string, to []string, raw []byte) error {
	unsubscribe, others := a.unsubscribeRecipients(to)
	reports, received := a.reportRecipients(others)
	if len(received) > 0 {
		// D75: mail for a customer's domain; stored, with its webhook
		// jobs, before anything else, so a 451 later means a retry that
		// finds it stored (docs/inbound.md).
		if err := a.ReceiveInbound(ctx, from, received, raw); err != nil {
			return err
		}
	}
	if len(unsubscribe) > 0 {
		if err := a.unsubscribeByMail(ctx, unsubscribe); err != nil {
			return err
		}
	}
	if len(reports) == 0 {
		return nil
	}
	return a.ProcessInbound(ctx, reports, raw)
}

// reportRecipients splits recipients into those of the bounce host and of
// bounces.<domain> (reports, D55) and the others (received mail, D75).
func (a *App) reportRecipients(rcpts []string) (reports, received []string) {
	for _, r := range rcpts {
		domain := strings.ToLower(carteiro.DomainOf(r))
		if domain == strings.ToLower(a.cfg.BounceHost) || strings.HasPrefix(domain, "bounces.") {
			reports = append(reports, r)
		} else {
			received = append(received, r)
		}
	}
	return reports, received
}

// ProcessInbound reads a bounce or complaint that came back (D55) and
// binds it to one recipient (D65): the recipient named by a valid
// per-recipient token (in the envelope recipient it came to, or a
// Return-Path of the report or of the original it quotes), else the lone
// recipient of an email it matches by Message-ID or envelope id. The
// report then changes that recipient alone (bounced, delayed, delivered or
// complained, with the timeline events, the webhooks and the automatic
// suppressions of D46, in one transaction). A report that matches no
// email, or binds to no recipient, changes nothing: it is logged, counted
// (InboundReports) and dropped.
func (a *App) ProcessInbound(ctx context.Context, rcpts []string, raw []byte) error {
	rep, err := bounce.Parse(raw)
	if errors.Is(err, bounce.ErrNotABounce) {
		a.reports.count(reportNotAReport)
		a.logger.InfoContext(ctx, "inbound: not a bounce or complaint; dropped", "rcpts", rcpts, "bytes", len(raw))
		return nil
	}
	if err != nil {
		a.reports.count(reportNotAReport)
		a.logger.WarnContext(ctx, "inbound: unreadable message; dropped", "err", err)
		return nil
	}
	b, err := a.bindReport(ctx, rcpts, rep)
	if err != nil {
		return err // the listener answers 451: the sender retries later
	}
	var bound *bounce.Report
	if b.recipient != nil {
		if bound = b.entries(rep); len(bound.Recipients) == 0 {
			b.recipient, b.why = nil, "every entry names another recipient"
		}
	}
	switch {
	case b.email == nil:
		a.reports.count(reportUnmatched)
		a.logger.InfoContext(ctx, "inbound: matches no email; dropped", "kind", rep.Kind, "messageId", rep.OriginalMessageID)
		return nil
	case b.recipient == nil:
		a.reports.count(reportUnbound)
		a.logger.WarnContext(ctx, "inbound: report not bound to a recipient; dropped (D65)", "kind", rep.Kind,
			"email_id", b.email.ID, "reason", b.why)
		return nil
	}
	a.reports.count(reportBound)
	return a.store.RecordReport(ctx, func(tx *store.Tx) error {
		return a.applyReport(ctx, tx, b.email, b.recipients, b.recipient, bound)
	})
}

// applyReport records what a report's entries say about rcpt, the one
// recipient of e the report is bound to (D65).
func (a *App) applyReport(ctx context.Context, tx *store.Tx, e *carteiro.Email, recipients []*carteiro.Recipient, rcpt *carteiro.Recipient, rep *bounce.Report) error {
	now := a.clock.Now()
	var events []*carteiro.EmailEvent
	add := func(t carteiro.EventType, meta map[string]any) { events = append(events, newEvent(e.ID, t, now, meta)) }
	var changed []*carteiro.Recipient
	address := rcpt.Address
	for _, rr := range rep.Recipients {
		switch rr.Class {
		case bounce.ClassHard, bounce.ClassSoft, bounce.ClassBlock:
			if rcpt.Status == carteiro.RecipientBounced {
				continue // the same report twice
			}
			bounceType := map[bounce.Class]string{bounce.ClassHard: "hard", bounce.ClassSoft: "soft", bounce.ClassBlock: "block"}[rr.Class]
			rcpt.Status, rcpt.LastCode, rcpt.LastEnhanced, rcpt.LastMessage, rcpt.UpdatedAt = carteiro.RecipientBounced, rr.Code, rr.Status, rr.Diagnostic, now
			changed = append(changed, rcpt)
			add(carteiro.EventBounced, map[string]any{"recipient": address, "bounceType": bounceType, "code": rr.Code,
				"enhancedCode": rr.Status, "diagnostic": rr.Diagnostic})
			e.BouncedAt, e.LastError = &now, strings.TrimSpace(rr.Status+" "+rr.Diagnostic)
			if err := a.suppressForBounce(ctx, tx, e.OrgID, address, rr); err != nil {
				return err
			}
		case bounce.ClassSender:
			// D69: the sending side's configuration was refused; the
			// recipient fails with the reply and is not suppressed.
			if rcpt.Status == carteiro.RecipientBounced || rcpt.Status == carteiro.RecipientFailed {
				continue // the same report twice
			}
			reply := strings.TrimSpace(rr.Status + " " + rr.Diagnostic)
			rcpt.Status, rcpt.LastCode, rcpt.LastEnhanced, rcpt.LastMessage, rcpt.UpdatedAt = carteiro.RecipientFailed, rr.Code, rr.Status, rr.Diagnostic, now
			changed = append(changed, rcpt)
			add(carteiro.EventFailed, map[string]any{"recipient": address, "error": reply})
			e.LastError = reply
		case bounce.ClassDelayed:
			add(carteiro.EventDeliveryDelayed, map[string]any{"recipient": address, "code": rr.Code, "enhancedCode": rr.Status,
				"diagnostic": rr.Diagnostic})
		case bounce.ClassDelivered:
			if rcpt.Status != carteiro.RecipientSent {
				continue
			}
			rcpt.Status, rcpt.UpdatedAt = carteiro.RecipientDelivered, now
			changed = append(changed, rcpt)
			add(carteiro.EventDelivered, map[string]any{"recipient": address})
			e.DeliveredAt = &now
		case bounce.ClassComplaint:
			first, err := tx.MarkComplained(ctx, e.ID, now)
			if err != nil {
				return err
			}
			if !first {
				continue // the same complaint reported again
			}
			add(carteiro.EventComplained, map[string]any{"recipient": address, "feedbackType": rep.FeedbackType})
			e.ComplainedAt = &now
			if err := a.autoSuppress(ctx, tx, e.OrgID, address, "complaint", CategoryAll, nil); err != nil {
				return err
			}
		}
	}
	if len(events) == 0 {
		return nil
	}
	for _, r := range changed {
		if err := tx.UpdateRecipient(ctx, r); err != nil {
			return err
		}
	}
	if e.Status != carteiro.EmailCancelled {
		e.Status = emailStatus(recipients)
	}
	if e.Status == carteiro.EmailFailed && e.FailedAt == nil {
		e.FailedAt = &now
	}
	if err := tx.UpdateEmailProgress(ctx, e, nil); err != nil {
		return err
	}
	return a.recordEvents(ctx, tx, e, events)
}

// suppressForBounce applies D46 as amended by D69: a bounce that blames
// the address (X.1.1, X.1.10, X.2.1, X.1.6) → mailbox_not_found, other
// hard bounces → bounce, a provider's block → isp_block for 7 days; soft
// bounces and refusals of the sending side suppress nothing.
func (a *App) suppressForBounce(ctx context.Context, tx *store.Tx, orgID, address string, rr bounce.RecipientReport) error {
	reason := suppressionReason(rr)
	switch reason {
	case "":
		return nil
	case "isp_block":
		expires := a.clock.Now().Add(ispBlockExpiry)
		return a.autoSuppress(ctx, tx, orgID, address, reason, CategoryAll, &expires)
	}
	return a.autoSuppress(ctx, tx, orgID, address, reason, CategoryAll, nil)
}

// suppressionReason is the reason of the automatic suppression a bounce
// makes (D69), "" when it makes none.
func suppressionReason(rr bounce.RecipientReport) string {
	switch rr.Class {
	case bounce.ClassBlock:
		return "isp_block"
	case bounce.ClassHard:
		switch rr.Status[min(2, len(rr.Status)):] {
		case "1.1", "1.10", "2.1", "1.6":
			return "mailbox_not_found"
		}
		return "bounce"
	}
	return ""
}
