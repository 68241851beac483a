package app

import (
	"context"
	"errors"
	"strings"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/bounce"
	"github.com/carteiro/carteiro/internal/store"
)

// reportBinding is what an inbound report may change (D65): the email it
// matched (nil when none) and the one recipient it is bound to (nil when it
// is bound to none, why then says so for the log).
type reportBinding struct {
	email      *carteiro.Email
	recipients []*carteiro.Recipient
	recipient  *carteiro.Recipient
	why        string
}

// bindReport applies D65. A report is bound to a recipient when (a) a
// valid per-recipient token names it: in an envelope recipient the report
// came to, or in a return path the report carries; or (b) no such token
// was found and the email the report matches (by an older per-email
// token, Message-ID or envelope id) has exactly one recipient. Tokens
// naming different recipients bind nothing. A Message-ID is no proof: any
// recipient of a multi-recipient email knows it, so it never picks one.
func (a *App) bindReport(ctx context.Context, rcpts []string, rep *bounce.Report) (reportBinding, error) {
	var bound []returnPathToken // per-recipient tokens, distinct
	var candidates []string     // email ids that match without naming a recipient
	for _, addr := range append(append([]string{}, rcpts...), rep.ReturnPaths...) {
		tok, ok := a.parseReturnPath(addr)
		switch {
		case !ok:
		case tok.position < 0:
			candidates = append(candidates, tok.emailID)
		case !containsToken(bound, tok):
			bound = append(bound, tok)
		}
	}
	if len(bound) > 0 {
		e, err := a.reportEmail(ctx, bound[0].emailID)
		if err != nil || e == nil {
			return reportBinding{}, err
		}
		b := reportBinding{email: e}
		if len(bound) > 1 {
			b.why = "tokens name different recipients"
			return b, nil
		}
		if b.recipients, err = a.store.Recipients(ctx, e.ID); err != nil {
			return reportBinding{}, err
		}
		for _, r := range b.recipients {
			if r.Position == bound[0].position {
				b.recipient = r
			}
		}
		if b.recipient == nil {
			b.why = "the token names no recipient of the email"
		}
		return b, nil
	}

	if id, _, ok := strings.Cut(rep.OriginalMessageID, "@"); ok {
		candidates = append(candidates, id)
	}
	if rep.OriginalEnvelopeID != "" {
		candidates = append(candidates, rep.OriginalEnvelopeID)
	}
	for _, id := range candidates {
		e, err := a.reportEmail(ctx, id)
		if err != nil {
			return reportBinding{}, err
		}
		if e == nil {
			continue
		}
		b := reportBinding{email: e}
		if b.recipients, err = a.store.Recipients(ctx, e.ID); err != nil {
			return reportBinding{}, err
		}
		if len(b.recipients) == 1 {
			b.recipient = b.recipients[0]
		} else {
			b.why = "no per-recipient token, and the email has several recipients"
		}
		return b, nil
	}
	return reportBinding{}, nil
}

// reportEmail returns the email a report may be about; nil when there is
// none (sandbox emails never left, so no report can be about them).
func (a *App) reportEmail(ctx context.Context, id string) (*carteiro.Email, error) {
	e, err := a.store.EmailByID(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	case e.Sandbox:
		return nil, nil
	}
	return e, nil
}

// entries returns the report with only the entries that may change the
// bound recipient: an entry naming another recipient of the email (by its
// original or final address) is dropped, since the binding says whose
// report it is; one naming the bound recipient, an address that is no
// recipient (where its mail was forwarded), or nobody (a redacted ARF)
// stays. An ARF that names nobody at all gets one entry, for the bound
// recipient.
func (b reportBinding) entries(rep *bounce.Report) *bounce.Report {
	out := *rep
	out.Recipients = nil
	for _, rr := range rep.Recipients {
		if b.namesAnotherRecipient(rr) {
			continue
		}
		out.Recipients = append(out.Recipients, rr)
	}
	if rep.Kind == bounce.KindARF && len(rep.Recipients) == 0 {
		out.Recipients = []bounce.RecipientReport{{Class: bounce.ClassComplaint}}
	}
	return &out
}

// namesAnotherRecipient reports whether rr names a recipient of the email
// other than the bound one; a guessed ARF address (the original's To)
// names nobody.
func (b reportBinding) namesAnotherRecipient(rr bounce.RecipientReport) bool {
	if rr.Guessed {
		return false
	}
	for _, addr := range []string{rr.OriginalRecipient, rr.Recipient} {
		if addr != "" && strings.EqualFold(addr, b.recipient.Address) {
			return false
		}
	}
	for _, r := range b.recipients {
		if r.Position == b.recipient.Position {
			continue
		}
		if strings.EqualFold(r.Address, rr.OriginalRecipient) || strings.EqualFold(r.Address, rr.Recipient) {
			return true
		}
	}
	return false
}

// containsToken reports whether list has tok.
func containsToken(list []returnPathToken, tok returnPathToken) bool {
	for _, t := range list {
		if t == tok {
			return true
		}
	}
	return false
}
