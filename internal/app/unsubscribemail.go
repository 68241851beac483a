package app

import (
	"context"
	"errors"
	"strings"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro/internal/store"
)

// unsubscribeMailPurpose binds the token of a mailto unsubscribe address
// (D71), apart from return paths and the https link's tokens.
const unsubscribeMailPurpose = "unsubscribe-mailto"

// unsubscribeMailPrefix starts the local part of a mailto unsubscribe
// address.
const unsubscribeMailPrefix = "unsubscribe+"

// unsubscribeMailto is the mailto URI of List-Unsubscribe (D71):
// unsubscribe+<token>@<bounce host>, where the token is the broadcast
// email's id signed compactly (as a return path's, D65): the id is the
// only name of the recipient that fits a local part's 64 octets
// (12 + 45 here), and the email says the organization, the address and
// the broadcast.
func (a *App) unsubscribeMailto(emailID string) string {
	id := uuid.MustParse(emailID)
	return "mailto:" + unsubscribeMailPrefix + a.box.SignCompact(unsubscribeMailPurpose, id[:]) + "@" + a.cfg.BounceHost
}

// listUnsubscribe is the List-Unsubscribe header of a broadcast email
// (D43, D71): the one-click https link first, then the mailto address.
func (a *App) listUnsubscribe(unsubscribeURL, emailID string) string {
	return "<" + unsubscribeURL + ">, <" + a.unsubscribeMailto(emailID) + ">"
}

// unsubscribeMailEmail reads the email id a mailto unsubscribe recipient
// names; ok is false for any other address, a forged or altered token
// included. Only the bounce host's addresses count: the mailto URI is
// written with it.
func (a *App) unsubscribeMailEmail(rcpt string) (string, bool) {
	at := strings.LastIndexByte(rcpt, '@')
	if at < 0 || !strings.EqualFold(strings.TrimSuffix(rcpt[at+1:], "."), a.cfg.BounceHost) {
		return "", false
	}
	local := rcpt[:at]
	if len(local) <= len(unsubscribeMailPrefix) || !strings.EqualFold(local[:len(unsubscribeMailPrefix)], unsubscribeMailPrefix) {
		return "", false
	}
	raw, ok := a.box.VerifyCompact(unsubscribeMailPurpose, local[len(unsubscribeMailPrefix):])
	if !ok {
		return "", false
	}
	id, err := uuid.FromBytes(raw)
	if err != nil {
		return "", false
	}
	return id.String(), true
}

// isUnsubscribeMail reports whether rcpt is a mailto unsubscribe address,
// valid or not, so that such mail is never read as a bounce.
func (a *App) isUnsubscribeMail(rcpt string) bool {
	at := strings.LastIndexByte(rcpt, '@')
	return at > len(unsubscribeMailPrefix) && strings.EqualFold(rcpt[:len(unsubscribeMailPrefix)], unsubscribeMailPrefix)
}

// unsubscribeByMail handles a message sent to mailto unsubscribe
// addresses (D71): each valid one unsubscribes the recipient of the
// broadcast email it names exactly as the one-click POST does (an
// `unsubscribe` suppression of category marketing, D43, D45); a forged or
// altered address, or one naming no broadcast email, changes nothing. What
// the message says does not matter (RFC 2369: its subject and body may be
// anything).
func (a *App) unsubscribeByMail(ctx context.Context, rcpts []string) error {
	for _, rcpt := range rcpts {
		id, ok := a.unsubscribeMailEmail(rcpt)
		if !ok {
			a.logger.WarnContext(ctx, "inbound: unsubscribe address with a forged or altered token; dropped", "rcpt", rcpt)
			continue
		}
		e, err := a.store.EmailByID(ctx, id)
		switch {
		case errors.Is(err, store.ErrNotFound):
			a.logger.InfoContext(ctx, "inbound: unsubscribe for an email no longer kept; dropped", "email_id", id)
			continue
		case err != nil:
			return err // the listener answers 451: the sender retries later
		case e.BroadcastID == "" || len(e.To) != 1:
			a.logger.WarnContext(ctx, "inbound: unsubscribe for an email that is no broadcast email; dropped", "email_id", id)
			continue
		}
		err = a.store.InTx(ctx, func(tx *store.Tx) error {
			return a.autoSuppress(ctx, tx, e.OrgID, strings.ToLower(e.To[0].Email), "unsubscribe", CategoryMarketing, nil)
		})
		if err != nil {
			return storeErr(err)
		}
		a.logger.InfoContext(ctx, "inbound: unsubscribed by mail (D71)", "email_id", id, "broadcast_id", e.BroadcastID)
	}
	return nil
}

// unsubscribeRecipients splits rcpts into the mailto unsubscribe addresses
// and the others.
func (a *App) unsubscribeRecipients(rcpts []string) (unsubscribe, others []string) {
	for _, r := range rcpts {
		if a.isUnsubscribeMail(r) {
			unsubscribe = append(unsubscribe, r)
		} else {
			others = append(others, r)
		}
	}
	return unsubscribe, others
}
