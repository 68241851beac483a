package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// broadcastSource is what every recipient's email renders from: the
// template, or the broadcast's own html/text; the subject is the
// broadcast's (D42).
func (a *App) broadcastSource(ctx context.Context, b *carteiro.Broadcast) (carteiro.TemplateSource, error) {
	subject := b.Subject
	if b.TemplateID == nil {
		src := carteiro.TemplateSource{Format: carteiro.TemplateHandlebars, Subject: &subject, Text: b.Text}
		if b.HTML != nil {
			src.HTML = *b.HTML
		}
		return src, nil
	}
	t, err := a.store.Template(ctx, b.OrgID, *b.TemplateID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return carteiro.TemplateSource{}, carteiro.Invalid("templateId", "invalid_value")
	case err != nil:
		return carteiro.TemplateSource{}, err
	case !t.IsActive:
		return carteiro.TemplateSource{}, carteiro.Invalid("templateId", "inactive")
	}
	src := t.Source()
	src.Subject = &subject
	return src, nil
}

// broadcastEmail renders one contact's email (D42): the contact's fields
// and unsubscribeUrl over the broadcast's variables, with the RFC 8058
// unsubscribe headers (D43), whose List-Unsubscribe also has a mailto
// address the inbound listener reads (D71).
func (a *App) broadcastEmail(ctx context.Context, b *carteiro.Broadcast, src carteiro.TemplateSource, c *carteiro.Contact, domainID string, now time.Time) (*carteiro.Email, error) {
	unsubscribe := a.unsubscribeURL(b.OrgID, c.Email, b.ID)
	vars := b.Variables.Merged()
	meta, err := c.Metadata.Object()
	if err != nil {
		return nil, fmt.Errorf("contact %s metadata: %w", c.ID, err)
	}
	contact := carteiro.NewJSONObject(4)
	contact.Set("email", c.Email)
	contact.Set("firstName", derefOr(c.FirstName))
	contact.Set("lastName", derefOr(c.LastName))
	contact.Set("metadata", meta)
	vars.Set("contact", contact)
	vars.Set("unsubscribeUrl", unsubscribe)
	out, err := a.templates.Render(ctx, src, vars)
	if err != nil {
		return nil, templateErr(err)
	}
	if out.Subject == "" || carteiro.ValidateSubject(out.Subject) != nil {
		return nil, carteiro.Invalid("subject", "invalid_value")
	}
	id := uuid.Must(uuid.NewV7()).String()
	e := &carteiro.Email{ID: id, OrgID: b.OrgID, Mode: b.Mode, Sandbox: b.Mode == carteiro.ModeTest,
		DomainID: domainID, From: b.From, To: []carteiro.Address{{Email: c.Email}}, Subject: out.Subject, HTML: out.HTML, Text: out.Text,
		Headers: map[string]string{
			"List-Unsubscribe":      a.listUnsubscribe(unsubscribe, id),
			"List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
		},
		BroadcastID: b.ID, Status: carteiro.EmailQueued, CreatedAt: now}
	if b.ReplyTo != nil {
		e.ReplyTo = []carteiro.Address{*b.ReplyTo}
	}
	if src.HTML == "" {
		e.HTML = "" // a text-only broadcast
	}
	return e, nil
}

// personalisationFailure tells whether err is one contact's email failing
// to render (a template error, or a subject that renders invalid for this
// contact), and the error to record on that email. Any other error, a
// cancelled context or the database, is not the contact's fault.
func personalisationFailure(err error) (string, bool) {
	var ce *carteiro.Error
	if !errors.As(err, &ce) {
		return "", false
	}
	switch ce.Code {
	case carteiro.CodeTemplateRenderError, carteiro.CodeTemplateSyntaxError:
		reason := ce.Code
		if r, ok := ce.Details["reason"].(string); ok && r != "" {
			reason += ": " + r
		}
		return reason, true
	case carteiro.CodeValidation:
		if ce.Field == "subject" {
			return "the subject rendered for this contact is invalid (empty, too long or with a line break)", true
		}
	}
	return "", false
}

// unrenderedBroadcastEmail is the failed email of a contact whose email
// could not render: it keeps the broadcast's subject as written and no
// content, so GET /emails shows the contact and the reason.
func (a *App) unrenderedBroadcastEmail(b *carteiro.Broadcast, c *carteiro.Contact, domainID, reason string, now time.Time) *carteiro.Email {
	e := &carteiro.Email{ID: uuid.Must(uuid.NewV7()).String(), OrgID: b.OrgID, Mode: b.Mode, Sandbox: b.Mode == carteiro.ModeTest,
		DomainID: domainID, From: b.From, To: []carteiro.Address{{Email: c.Email}}, Subject: b.Subject,
		BroadcastID: b.ID, Status: carteiro.EmailFailed, LastError: reason, FailedAt: &now, CreatedAt: now}
	if b.ReplyTo != nil {
		e.ReplyTo = []carteiro.Address{*b.ReplyTo}
	}
	return e
}

func derefOr(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}
