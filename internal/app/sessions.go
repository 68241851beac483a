package app

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// Dashboard sign-in and sessions (D73): argon2id passwords, an optional
// TOTP code, sessions that end after 12 h idle or 7 days, a CSRF token
// per session. The login limits are the transport's (per address and IP).

// sessionIDLength and csrfTokenLength are base62 characters: 238 bits.
const (
	sessionIDLength = 40
	csrfTokenLength = 40
	setupTokenLen   = 40
)

// touchEvery bounds how often a session's last use is written: the idle
// timeout is hours long, so a minute of slack costs nothing and spares a
// write per dashboard request.
const touchEvery = time.Minute

// NewSession is a session just opened: ID is the cookie's value, shown
// only now (the store keeps its hash).
type NewSession struct {
	ID      string
	Session *carteiro.Session
	User    *carteiro.User
	Org     *carteiro.Organization
}

// unauthorized is every refused sign-in: which of email, password or code
// was wrong is not told.
func unauthorized() error { return &carteiro.Error{Code: carteiro.CodeUnauthorized} }

// dummyHash is checked against when the email is unknown, so an unknown
// address takes as long to refuse as a wrong password.
var dummyHash = mustHash("carteiro-no-such-user")

func mustHash(pw string) string {
	h, err := hashPassword(pw)
	if err != nil {
		panic(err)
	}
	return h
}

// Login checks a user's email, password and, when TOTP is on, code, and
// opens a session. A missing code is UNAUTHORIZED with reason
// totp_required, so the page can ask for it.
func (a *App) Login(ctx context.Context, email, password, totp string) (*NewSession, error) {
	norm, err := normalizeUserEmail(email)
	if err != nil {
		checkPassword(dummyHash, password)
		return nil, unauthorized()
	}
	u, err := a.store.UserByEmail(ctx, norm)
	if errors.Is(err, store.ErrNotFound) {
		checkPassword(dummyHash, password)
		return nil, unauthorized()
	}
	if err != nil {
		return nil, storeErr(err)
	}
	if !checkPassword(u.PasswordHash, password) {
		return nil, unauthorized()
	}
	if u.TOTPEnabled() {
		if totp == "" {
			return nil, &carteiro.Error{Code: carteiro.CodeUnauthorized, Details: map[string]any{"reason": "totp_required"}}
		}
		if err := a.checkUserTOTP(ctx, u, u.TOTPSecret, totp); err != nil {
			return nil, err
		}
	}
	return a.openSession(ctx, nil, u)
}

// checkUserTOTP accepts code for the sealed secret once (D63's rule).
func (a *App) checkUserTOTP(ctx context.Context, u *carteiro.User, sealed, code string) error {
	secret, err := a.box.Open(sealed)
	if err != nil {
		return &carteiro.Error{Code: carteiro.CodeInternal, Err: fmt.Errorf("open user totp secret: %w", err)}
	}
	step, ok := matchTOTP(secret, code, a.clock.Now())
	if !ok {
		return unauthorized()
	}
	claimed, err := a.store.ClaimUserTOTPStep(ctx, u.ID, int64(step))
	if err != nil {
		return storeErr(err)
	}
	if !claimed {
		return unauthorized()
	}
	return nil
}

// openSession creates a session for u, inside tx when given.
func (a *App) openSession(ctx context.Context, tx *store.Tx, u *carteiro.User) (*NewSession, error) {
	org, err := a.store.Organization(ctx, u.OrgID)
	if err != nil {
		return nil, storeErr(err)
	}
	id := carteiro.RandomBase62(sessionIDLength)
	now := a.clock.Now()
	s := &carteiro.Session{IDHash: carteiro.HashToken(id), UserID: u.ID, OrgID: u.OrgID,
		CSRFToken: carteiro.RandomBase62(csrfTokenLength), CreatedAt: now, LastSeenAt: now}
	q := a.store.Queries
	if tx != nil {
		q = tx.Queries
	}
	if err := q.CreateSession(ctx, s); err != nil {
		return nil, storeErr(err)
	}
	return &NewSession{ID: id, Session: s, User: u, Org: org}, nil
}

// SessionPrincipal resolves a session cookie to the caller, seeing the
// data of mode (the dashboard's live/test switch). An unknown or ended
// session is UNAUTHORIZED; an ended one is deleted.
func (a *App) SessionPrincipal(ctx context.Context, sessionID string, mode carteiro.Mode) (*Principal, error) {
	if !carteiro.ValidMode(mode) {
		return nil, carteiro.Invalid("X-Carteiro-Mode", "invalid_value")
	}
	if sessionID == "" || len(sessionID) > 128 {
		return nil, unauthorized()
	}
	s, u, err := a.store.SessionWithUser(ctx, carteiro.HashToken(sessionID))
	if errors.Is(err, store.ErrNotFound) {
		return nil, unauthorized()
	}
	if err != nil {
		return nil, storeErr(err)
	}
	now := a.clock.Now()
	if s.Expired(now) {
		if err := a.store.DeleteSession(ctx, s.IDHash); err != nil {
			return nil, storeErr(err)
		}
		return nil, unauthorized()
	}
	if now.Sub(s.LastSeenAt) >= touchEvery {
		if err := a.store.TouchSession(ctx, s.IDHash, now); err != nil {
			return nil, storeErr(err)
		}
		s.LastSeenAt = now
	}
	org, err := a.store.Organization(ctx, s.OrgID)
	if err != nil {
		return nil, storeErr(err)
	}
	// The key a session acts with: never stored, full access, no id, so
	// emails sent from the dashboard name no API key.
	key := &carteiro.APIKey{OrgID: org.ID, Mode: mode, Permission: carteiro.PermissionFull}
	return &Principal{Org: org, Key: key, User: u, Session: s}, nil
}

// CSRFMatches compares a request's CSRF token with its session's in
// constant time.
func (p *Principal) CSRFMatches(token string) bool {
	return p.Session != nil && token != "" && subtle.ConstantTimeCompare([]byte(token), []byte(p.Session.CSRFToken)) == 1
}

// Logout ends the caller's session.
func (a *App) Logout(ctx context.Context, p *Principal) error {
	return storeErr(a.store.DeleteSession(ctx, p.Session.IDHash))
}

// ChangePassword sets the caller's new password after checking the
// current one, and ends the user's other sessions.
func (a *App) ChangePassword(ctx context.Context, p *Principal, current, next string) error {
	if err := checkNewPassword("newPassword", next); err != nil {
		return err
	}
	if !checkPassword(p.User.PasswordHash, current) {
		return &carteiro.Error{Code: carteiro.CodeReauthFailed}
	}
	h, err := hashPassword(next)
	if err != nil {
		return &carteiro.Error{Code: carteiro.CodeInternal, Err: err}
	}
	u := *p.User
	u.PasswordHash = h
	return storeErr(a.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.UpdateUser(ctx, &u); err != nil {
			return err
		}
		if err := tx.DeleteOtherSessions(ctx, u.ID, p.Session.IDHash); err != nil {
			return err
		}
		return a.audit(ctx, tx, u.OrgID, u.Email, carteiro.AuditPasswordChange, u.Email)
	}))
}

// NewSetupToken makes the first start's one-time link token for orgID,
// valid 24 hours (D73); only its hash is stored.
func (a *App) NewSetupToken(ctx context.Context, orgID string) (string, error) {
	token := carteiro.RandomBase62(setupTokenLen)
	if err := a.store.CreateSetupToken(ctx, orgID, carteiro.HashToken(token), a.clock.Now().Add(carteiro.SetupTokenTTL)); err != nil {
		return "", storeErr(err)
	}
	return token, nil
}

// SetupOrganization returns the organization a usable setup token is for;
// NOT_FOUND when the token is unknown, used or expired.
func (a *App) SetupOrganization(ctx context.Context, token string) (*carteiro.Organization, error) {
	orgID, err := a.store.SetupTokenOrg(ctx, carteiro.HashToken(token), a.clock.Now())
	if err != nil {
		return nil, storeErr(err)
	}
	org, err := a.store.Organization(ctx, orgID)
	return org, storeErr(err)
}

// CompleteSetup uses a setup token once: it creates the organization's
// first owner and signs them in. The token is spent in the transaction
// that creates the user, so a refused user (a taken email) leaves it usable.
func (a *App) CompleteSetup(ctx context.Context, token, email, password string) (*NewSession, error) {
	org, err := a.SetupOrganization(ctx, token)
	if err != nil {
		return nil, err
	}
	u, err := a.newUser(UserRequest{OrgID: org.ID, Email: email, Password: password, Role: carteiro.RoleOwner})
	if err != nil {
		return nil, err
	}
	var ns *NewSession
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		ok, err := tx.UseSetupToken(ctx, carteiro.HashToken(token), a.clock.Now())
		if err != nil {
			return err
		}
		if !ok {
			return carteiro.NotFound()
		}
		if err := a.insertUser(ctx, tx, u, u.Email); err != nil {
			return err
		}
		ns, err = a.openSession(ctx, tx, u)
		return err
	})
	if err != nil {
		return nil, storeErr(err)
	}
	return ns, nil
}
