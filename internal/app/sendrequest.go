package app

import (
	"fmt"
	"time"

	"github.com/carteiro/carteiro"
)

// AddressInput is an address as the request gave it (D16): a string
// ("a@b.c" or "Name <a@b.c>") or an {email, name?} object.
type AddressInput struct {
	Text   string
	Email  string
	Name   string
	Object bool
}

func (in AddressInput) parse(field string) (carteiro.Address, error) {
	if in.Object {
		return carteiro.NewAddress(field, in.Email, in.Name)
	}
	return carteiro.ParseAddress(field, in.Text)
}

// AddressList is one address field; Single records that the request gave a
// lone value rather than an array, which changes the reported field path.
type AddressList struct {
	Items  []AddressInput
	Single bool
}

func (l AddressList) parse(field string) ([]carteiro.Address, error) {
	if l.Items == nil {
		return nil, nil
	}
	out := make([]carteiro.Address, 0, len(l.Items))
	for i, in := range l.Items {
		path := field
		if !l.Single {
			path = fmt.Sprintf("%s[%d]", field, i)
		}
		a, err := in.parse(path)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// SendRequest is POST /emails (4.1) after JSON decoding, before validation.
type SendRequest struct {
	From           *AddressInput
	To             AddressList
	Cc, Bcc        AddressList
	ReplyTo        AddressList
	Subject        *string
	HTML, Text     *string
	TemplateID     *string
	Variables      *carteiro.JSONObject
	Attachments    []carteiro.AttachmentInput
	ScheduledAt    *time.Time
	IdempotencyKey string
	Tags           []carteiro.Tag
	Headers        map[string]string
	IsSandbox      bool
	// MessageID is a Message-ID to keep (without angle brackets), given by
	// an SMTP submission (D74); "" lets the service make one.
	MessageID string
	// BodyHash identifies the request's content for idempotency (D22).
	BodyHash string
}

// SendResult answers POST /emails.
type SendResult struct {
	ID       string
	Status   carteiro.EmailStatus
	QueuedAt time.Time
	// Replayed is true when an idempotency key returned a stored answer.
	Replayed bool
}

// buildEmail validates r in the order of its fields and builds the email
// it asks for (D12, D14, D16 to D21). renderTemplate renders the named
// template with the request's variables (D20), called only when templateId
// is given and every earlier field is valid. Checks that need the database
// (the sender) come later.
func buildEmail(r *SendRequest, renderTemplate func(id string) (carteiro.RenderedTemplate, error)) (*carteiro.Email, error) {
	e := &carteiro.Email{Headers: r.Headers, Tags: r.Tags}
	if r.From == nil {
		return nil, carteiro.Invalid("from", "required")
	}
	var err error
	if e.From, err = r.From.parse("from"); err != nil {
		return nil, err
	}
	if r.To.Items == nil {
		return nil, carteiro.Invalid("to", "required")
	}
	if e.To, err = r.To.parse("to"); err != nil {
		return nil, err
	}
	if e.Cc, err = r.Cc.parse("cc"); err != nil {
		return nil, err
	}
	if e.Bcc, err = r.Bcc.parse("bcc"); err != nil {
		return nil, err
	}
	if e.ReplyTo, err = r.ReplyTo.parse("replyTo"); err != nil {
		return nil, err
	}
	if err := carteiro.CheckRecipientCount(len(e.To), len(e.Cc), len(e.Bcc)); err != nil {
		return nil, err
	}
	if r.TemplateID != nil {
		rendered, err := renderTemplate(*r.TemplateID)
		if err != nil {
			return nil, err
		}
		if r.HTML != nil || r.Text != nil {
			// One source of content: a template and its own html/text
			// would leave unclear which one is sent.
			field := "html"
			if r.HTML == nil {
				field = "text"
			}
			return nil, carteiro.Invalid(field, "not_allowed")
		}
		// D20: the request's subject overrides the template's.
		if r.Subject == nil || *r.Subject == "" {
			r.Subject = &rendered.Subject
		}
		e.HTML, e.Text = rendered.HTML, rendered.Text
	}
	if r.Subject == nil || *r.Subject == "" {
		return nil, carteiro.Invalid("subject", "required")
	}
	if err := carteiro.ValidateSubject(*r.Subject); err != nil {
		return nil, err
	}
	e.Subject = *r.Subject
	if r.HTML != nil {
		e.HTML = *r.HTML
	}
	if r.Text != nil {
		e.Text = *r.Text
	}
	if e.HTML == "" && e.Text == "" {
		return nil, carteiro.Invalid("html", "required")
	}
	if err := carteiro.ValidateHeaders(r.Headers); err != nil {
		return nil, err
	}
	if err := carteiro.ValidateTags(r.Tags); err != nil {
		return nil, err
	}
	if e.Attachments, err = carteiro.DecodeAttachments(r.Attachments); err != nil {
		return nil, err
	}
	if r.IdempotencyKey != "" {
		if err := carteiro.ValidateIdempotencyKey(r.IdempotencyKey); err != nil {
			return nil, err
		}
	}
	return e, nil
}
