package app

import (
	"strings"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/bounce"
	"github.com/carteiro/carteiro/internal/mta"
)

// attempt is what one delivery attempt knows once the SMTP conversation is
// over: the email, its recipients, the transport's replies and the clock.
type attempt struct {
	email *carteiro.Email
	// all is every recipient of the email, pending those this run started
	// with, attempted those handed to SMTP (the others were suppressed).
	all, pending, attempted []*carteiro.Recipient
	results                 []mta.Result
	// events are the attempt's events so far (its suppressions').
	events []*carteiro.EmailEvent
	now    time.Time
	policy attemptPolicy
}

// attemptPolicy is the configuration the outcome of an attempt depends on.
type attemptPolicy struct {
	// acceptIsDelivery counts a 250 after DATA as delivery (D25).
	acceptIsDelivery bool
	// retryWindow is how long temporary failures are retried (D23).
	retryWindow time.Duration
}

// attemptVerdict is what the attempt decided beyond the email and
// recipients it updated: the events to record, the bounces that may
// suppress their address (D46, D69) and when to try again (zero: never).
type attemptVerdict struct {
	events  []*carteiro.EmailEvent
	bounces []bounce.RecipientReport
	retryAt time.Time
}

// judgeAttempt applies one attempt's per-recipient replies (D23 to D26,
// D69, D80): it updates the attempt's email and recipients in memory
// (statuses, last replies, timestamps) and returns what else must be
// written. It writes nothing. firstAttemptAt, when the email was first
// tried, is asked for only when a recipient was deferred, to tell a retry
// from the end of D23's window; its error is judgeAttempt's.
func judgeAttempt(at attempt, firstAttemptAt func() (*time.Time, error)) (attemptVerdict, error) {
	e, now := at.email, at.now
	v := attemptVerdict{events: at.events}
	byAddr := make(map[string]mta.Result, len(at.results))
	for _, r := range at.results {
		byAddr[strings.ToLower(r.Recipient)] = r
	}
	add := func(t carteiro.EventType, meta map[string]any) {
		v.events = append(v.events, newEvent(e.ID, t, now, meta))
	}
	deferred := 0
	// heldUntil is when the destination holding every deferred recipient
	// is released (D80), zero when some deferral has no such date.
	var heldUntil time.Time
	allHeld := true
	for _, rcpt := range at.attempted {
		res, ok := byAddr[strings.ToLower(rcpt.Address)]
		if !ok {
			res = mta.Result{Recipient: rcpt.Address, Class: mta.ClassTemporary, Message: "no result from the transport"}
		}
		firstDeferral := rcpt.Status == carteiro.RecipientPending
		// D69: "550 5.0.0 ... 5.1.1 ..." is a 5.1.1.
		res.Enhanced = bounce.RefineStatus(res.Enhanced, res.Message)
		rcpt.LastCode, rcpt.LastEnhanced, rcpt.LastMessage, rcpt.UpdatedAt = res.Code, res.Enhanced, res.Message, now
		response := replyText(res)
		switch res.Class {
		case mta.ClassAccepted:
			add(carteiro.EventSent, map[string]any{"recipient": rcpt.Address, "mx": res.Host, "response": response})
			if e.SentAt == nil {
				e.SentAt = &now
			}
			rcpt.Status = carteiro.RecipientSent
			if at.policy.acceptIsDelivery {
				rcpt.Status = carteiro.RecipientDelivered
				add(carteiro.EventDelivered, map[string]any{"recipient": rcpt.Address})
				e.DeliveredAt = &now
			}
		case mta.ClassPermanent, mta.ClassBlock:
			rr := replyReport(rcpt.Address, res)
			if rr.Class == bounce.ClassSender {
				// D69: the sending side's configuration was refused (a
				// HELO, SPF, PTR ...): this recipient fails, with the
				// reply, and stays mailable.
				rcpt.Status = carteiro.RecipientFailed
				add(carteiro.EventFailed, map[string]any{"recipient": rcpt.Address, "error": response})
				e.LastError = response
				break
			}
			v.bounces = append(v.bounces, rr)
			rcpt.Status = carteiro.RecipientBounced
			add(carteiro.EventBounced, map[string]any{"recipient": rcpt.Address, "bounceType": string(rr.Class), "code": res.Code,
				"enhancedCode": res.Enhanced, "diagnostic": res.Message})
			e.BouncedAt = &now
			e.LastError = response
		default:
			rcpt.Status = carteiro.RecipientDeferred
			deferred++
			allHeld = allHeld && !res.RetryAt.IsZero()
			if res.RetryAt.After(heldUntil) {
				heldUntil = res.RetryAt
			}
			e.LastError = response
			if firstDeferral {
				add(carteiro.EventDeliveryDelayed, map[string]any{"recipient": rcpt.Address, "code": res.Code,
					"enhancedCode": res.Enhanced, "diagnostic": res.Message})
			}
		}
	}
	if deferred > 0 {
		first, err := firstAttemptAt()
		if err != nil {
			return attemptVerdict{}, err
		}
		if first != nil && now.Sub(*first) >= at.policy.retryWindow {
			// D23: the window is over; what is still deferred fails.
			for _, rcpt := range at.pending {
				if rcpt.Status == carteiro.RecipientDeferred {
					rcpt.Status = carteiro.RecipientFailed
					add(carteiro.EventFailed, map[string]any{"recipient": rcpt.Address, "error": e.LastError})
				}
			}
		} else {
			v.retryAt = now.Add(retryDelay(e.Attempts))
			if allHeld {
				// Trying a held destination earlier would only defer
				// again; its end is when delivery can succeed (now, if
				// it ended while this attempt was recorded).
				v.retryAt = heldUntil
				if v.retryAt.Before(now) {
					v.retryAt = now
				}
			}
		}
	}
	e.Status = emailStatus(at.all)
	if e.Status == carteiro.EmailFailed && e.FailedAt == nil {
		e.FailedAt = &now
	}
	return v, nil
}
