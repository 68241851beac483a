package app

import (
	"context"
	"errors"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/mimeparse"
	"github.com/carteiro/carteiro/internal/store"
)

// InboundQuery is GET /inbound-emails' filters (D75).
type InboundQuery struct {
	FromAddress, ToAddress string
	From, To, After        *time.Time
	Limit                  int
}

// Received mail is the organization's, not one key's: only full-access
// keys read or delete it, as with domains (docs/inbound.md).

// ListInboundEmails returns one page of received messages, newest first.
func (a *App) ListInboundEmails(ctx context.Context, p *Principal, q InboundQuery) ([]*carteiro.InboundEmail, *time.Time, error) {
	if err := p.requireFull(); err != nil {
		return nil, nil, err
	}
	switch {
	case q.Limit == 0:
		q.Limit = DefaultEmailPage
	case q.Limit < 1 || q.Limit > MaxEmailPage:
		return nil, nil, carteiro.Invalid("limit", "out_of_range")
	}
	list, next, err := a.store.ListInboundEmails(ctx, store.InboundFilter{OrgID: p.Org.ID, FromAddress: q.FromAddress,
		ToAddress: q.ToAddress, From: q.From, To: q.To, After: q.After, Limit: q.Limit})
	if err != nil {
		return nil, nil, storeErr(err)
	}
	return list, next, nil
}

// GetInboundEmail returns one received message with its text and html
// bodies, parsed again from the raw message: the store keeps the bodies
// only there, so each received message writes them once.
func (a *App) GetInboundEmail(ctx context.Context, p *Principal, id string) (*carteiro.InboundEmail, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	e, err := a.store.InboundEmail(ctx, p.Org.ID, id)
	if err != nil {
		return nil, storeErr(err)
	}
	raw, err := a.store.InboundRaw(ctx, p.Org.ID, id)
	if err != nil {
		return nil, storeErr(err) // deleted in between: 404
	}
	bodies := mimeparse.Parse(raw)
	e.Message.Text, e.Message.HTML = bodies.Text, bodies.HTML
	return e, nil
}

// InboundRaw returns a received message's bytes exactly as received.
func (a *App) InboundRaw(ctx context.Context, p *Principal, id string) ([]byte, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	raw, err := a.store.InboundRaw(ctx, p.Org.ID, id)
	return raw, storeErr(err)
}

// InboundAttachment returns one attachment of a received message, read
// from the raw message again.
func (a *App) InboundAttachment(ctx context.Context, p *Principal, id, attachmentID string) (*mimeparse.Attachment, []byte, error) {
	raw, err := a.InboundRaw(ctx, p, id)
	if err != nil {
		return nil, nil, err
	}
	att, content, err := mimeparse.Open(raw, attachmentID)
	if errors.Is(err, mimeparse.ErrNoAttachment) {
		return nil, nil, carteiro.NotFound()
	}
	if err != nil {
		return nil, nil, &carteiro.Error{Code: carteiro.CodeInternal, Err: err}
	}
	return att, content, nil
}

// DeleteInboundEmail deletes a received message, raw bytes and parts,
// and empties the email.received payloads that carried it (D75): the
// webhook log keeps that a message arrived, and a retry still pending
// sends that, without the message (docs/inbound.md).
func (a *App) DeleteInboundEmail(ctx context.Context, p *Principal, id string) error {
	if err := p.requireFull(); err != nil {
		return err
	}
	return storeErr(a.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.DeleteInboundEmail(ctx, p.Org.ID, id); err != nil {
			return err
		}
		return tx.EmptyReceivedDeliveries(ctx, p.Org.ID, id)
	}))
}
