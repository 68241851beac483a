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

// NewSender is POST /senders' answer: the sender and its token, shown once.
type NewSender struct {
	Sender *carteiro.Sender
	Token  string
}

// CreateSender registers a single-address identity and mails it a token.
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
	return &NewSender{Sender: s, Token: token}, nil
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
	now := a.clock.Now()
	if s.TokenUsedAt != nil || !now.Before(s.TokenExpiresAt) {
		return nil, &carteiro.Error{Code: carteiro.CodeTokenExpired}
	}
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
	text := fmt.Sprintf("Confirm that %s may send through Carteiro.\n\nVerification token: %s\n\n"+
		"Verify it with POST %s/v1/product/senders/verify and the body {\"token\": \"%s\"}. The token expires in 24 hours.\n",
		s.Email, token, a.cfg.PublicURL, token)
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
