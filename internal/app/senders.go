package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/mta"
	"github.com/carteiro/carteiro/internal/store"
)

// senderTokenLife is how long a verification token works (D36).
const senderTokenLife = 24 * time.Hour

// SenderVerificationJob mails a new sender its verification token from the
// service's own address (D36). The token travels sealed, so the queue's
// table never holds it in clear text.
type SenderVerificationJob struct {
	SenderID    string `json:"senderId"`
	SealedToken string `json:"sealedToken"`
}

// Kind names the job.
func (SenderVerificationJob) Kind() string { return "sender_verification" }

// NewSender is POST /senders' answer: the sender and, when the caller may
// see it, its token (D59); "" when it went only to the mailbox.
type NewSender struct {
	Sender *carteiro.Sender
	Token  string
}

// CreateSender registers a single-address identity and mails it a token.
// An address on a domain another organization registered is refused
// (D59), so an organization cannot send as another's domain.
func (a *App) CreateSender(ctx context.Context, p *Principal, email string, displayName *string) (*NewSender, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	addr, err := carteiro.ParseAddress("email", email)
	if err != nil {
		return nil, err
	}
	if addr.Name != "" {
		return nil, carteiro.Invalid("email", "invalid_email")
	}
	// The verification email leaves for this address: a restricted key
	// stays within its domain.
	if err := p.mayUseFrom(addr.Email, "email"); err != nil {
		return nil, err
	}
	if taken, err := a.domainOfAnotherOrganization(ctx, p.Org.ID, addr.Email); err != nil {
		return nil, err
	} else if taken {
		return nil, &carteiro.Error{Code: carteiro.CodeForbidden,
			Details: map[string]any{"field": "email", "reason": "domain_of_another_organization"}}
	}
	s := &carteiro.Sender{ID: uuid.Must(uuid.NewV7()).String(), OrgID: p.Org.ID, Email: strings.ToLower(addr.Email), Active: true}
	if displayName != nil {
		switch {
		case utf8.RuneCountInString(*displayName) > 200:
			return nil, carteiro.Invalid("displayName", "too_long")
		case strings.ContainsAny(*displayName, "\r\n\x00"):
			return nil, carteiro.Invalid("displayName", "header_injection")
		}
		s.DisplayName = *displayName
	}
	if prev, err := a.store.SenderByEmail(ctx, p.Org.ID, s.Email); err == nil {
		return nil, carteiro.Conflict(prev.ID)
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, storeErr(err)
	}
	token := uuid.NewString()
	now := a.clock.Now()
	s.TokenHash, s.TokenExpiresAt, s.CreatedAt = carteiro.HashKey(token), now.Add(senderTokenLife), now
	sealed, err := a.box.Seal([]byte(token))
	if err != nil {
		return nil, &carteiro.Error{Code: carteiro.CodeInternal, Err: err}
	}
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.CreateSender(ctx, s); err != nil {
			return err
		}
		return a.queue.EnqueueTx(ctx, tx, SenderVerificationJob{SenderID: s.ID, SealedToken: sealed}, JobOpts{})
	})
	if errors.Is(err, store.ErrConflict) {
		// Lost a race with a concurrent registration of the same address.
		if prev, perr := a.store.SenderByEmail(ctx, p.Org.ID, s.Email); perr == nil {
			return nil, carteiro.Conflict(prev.ID)
		}
		return nil, carteiro.Conflict("")
	}
	if err != nil {
		return nil, storeErr(err)
	}
	ns := &NewSender{Sender: s}
	// With a live key the token reaches only the mailbox, so holding it
	// proves the mailbox is the caller's (D59).
	if p.Mode() == carteiro.ModeTest || a.cfg.SenderTokenInResponse {
		ns.Token = token
	}
	return ns, nil
}

// domainOfAnotherOrganization reports whether another organization has
// registered (any status but deleted) the domain of email or a parent of
// it, under which that organization may send (D17, D59).
func (a *App) domainOfAnotherOrganization(ctx context.Context, orgID, email string) (bool, error) {
	taken, err := a.store.DomainNamedElsewhere(ctx, orgID, carteiro.SenderDomainCandidates(carteiro.DomainOf(email)))
	return taken, storeErr(err)
}

// ListSenders returns the organization's senders.
func (a *App) ListSenders(ctx context.Context, p *Principal) ([]*carteiro.Sender, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	ss, err := a.store.ListSenders(ctx, p.Org.ID)
	return ss, storeErr(err)
}

// VerifySender uses a token (D36): unknown → 404, expired or used → 410.
func (a *App) VerifySender(ctx context.Context, p *Principal, token string) (*carteiro.Sender, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	s, err := a.store.SenderByTokenHash(ctx, p.Org.ID, carteiro.HashKey(strings.TrimSpace(token)))
	if err != nil {
		return nil, storeErr(err)
	}
	return a.useSenderToken(ctx, s)
}

// SenderForToken is the confirmation page's look-up (D59): the sender an
// emailed token names while it can still verify it; unknown → 404,
// expired or used → 410. It changes nothing, so link scanners that fetch
// the page verify nobody.
func (a *App) SenderForToken(ctx context.Context, token string) (*carteiro.Sender, error) {
	s, err := a.store.SenderByToken(ctx, carteiro.HashKey(token))
	if err != nil {
		return nil, storeErr(err)
	}
	if !a.tokenUsable(s) {
		return nil, &carteiro.Error{Code: carteiro.CodeTokenExpired}
	}
	return s, nil
}

// ConfirmSender is the confirmation page's button (D59): the emailed token
// verifies its sender, as POST /senders/verify would with a key.
func (a *App) ConfirmSender(ctx context.Context, token string) (*carteiro.Sender, error) {
	s, err := a.store.SenderByToken(ctx, carteiro.HashKey(token))
	if err != nil {
		return nil, storeErr(err)
	}
	return a.useSenderToken(ctx, s)
}

func (a *App) tokenUsable(s *carteiro.Sender) bool {
	return s.TokenUsedAt == nil && a.clock.Now().Before(s.TokenExpiresAt)
}

// useSenderToken verifies s with its token, once.
func (a *App) useSenderToken(ctx context.Context, s *carteiro.Sender) (*carteiro.Sender, error) {
	if !a.tokenUsable(s) {
		return nil, &carteiro.Error{Code: carteiro.CodeTokenExpired}
	}
	now := a.clock.Now()
	ok, err := a.store.VerifySender(ctx, s.ID, now)
	if err != nil {
		return nil, storeErr(err)
	}
	if !ok {
		return nil, &carteiro.Error{Code: carteiro.CodeTokenExpired}
	}
	s.VerifiedAt = &now
	return s, nil
}

// DeleteSender removes a sender; re-registering needs a new verification.
func (a *App) DeleteSender(ctx context.Context, p *Principal, id string) error {
	if err := p.requireFull(); err != nil {
		return err
	}
	return storeErr(a.store.DeleteSender(ctx, p.Org.ID, id))
}

// senderConfirmURL is the link of a verification email (D59): a page whose
// button verifies the sender.
func (a *App) senderConfirmURL(token string) string {
	return strings.TrimRight(a.cfg.PublicURL, "/") + "/senders/confirm/" + token
}

// SendSenderVerification is the worker side of SenderVerificationJob. A
// temporary SMTP failure returns an error, so the queue retries it.
func (a *App) SendSenderVerification(ctx context.Context, job SenderVerificationJob) error {
	rawToken, err := a.box.Open(job.SealedToken)
	if err != nil {
		return fmt.Errorf("open sender token: %w", err)
	}
	s, err := a.store.SenderByID(ctx, job.SenderID)
	if errors.Is(err, store.ErrNotFound) {
		return nil // deleted meanwhile: nothing to send
	}
	if err != nil {
		return err
	}
	token := string(rawToken)
	text := fmt.Sprintf("Confirm that %s may send through Carteiro: open this link and press the button on its page.\n\n%s\n\n"+
		"Verification token: %s\n\nThe link expires in 24 hours. If you did not ask for this, ignore this email.\n",
		s.Email, a.senderConfirmURL(token), token)
	msgID := uuid.NewString() + "@" + carteiro.DomainOf(a.cfg.SystemFrom.Email)
	raw, err := mta.Build(&mta.Message{MessageID: msgID, Date: a.clock.Now(), From: a.cfg.SystemFrom,
		To: []carteiro.Address{{Name: s.DisplayName, Email: s.Email}}, Subject: "Verify your sender address", Text: text})
	if err != nil {
		return fmt.Errorf("build verification email: %w", err)
	}
	results := a.transport.Deliver(ctx, mta.Envelope{From: a.cfg.SystemFrom.Email, Recipients: []string{s.Email}}, raw)
	for _, r := range results {
		switch r.Class {
		case mta.ClassAccepted:
		case mta.ClassTemporary:
			return fmt.Errorf("verification email to %s deferred: %s", s.Email, replyText(r))
		default:
			a.logger.WarnContext(ctx, "verification email refused", "sender_id", s.ID, "reply", replyText(r))
		}
	}
	return nil
}
