package app

import (
	"context"
	"net/url"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// A user turns TOTP on in two steps: BeginTOTP makes a secret kept aside,
// ConfirmTOTP checks a code from the authenticator and only then makes
// login ask for codes, so a mistyped scan cannot lock the user out.

// BeginTOTP makes a new pending TOTP secret for the caller and returns it
// in base32 with an otpauth:// URL.
func (a *App) BeginTOTP(ctx context.Context, p *Principal) (secretB32, otpauthURL string, err error) {
	sealed, secretB32, err := a.newTOTPSecret()
	if err != nil {
		return "", "", err
	}
	u := *p.User
	u.TOTPPending = sealed
	if err := a.store.UpdateUser(ctx, &u); err != nil {
		return "", "", storeErr(err)
	}
	otpauthURL = "otpauth://totp/Carteiro:" + url.PathEscape(u.Email) + "?secret=" + secretB32 + "&issuer=Carteiro"
	return secretB32, otpauthURL, nil
}

// ConfirmTOTP turns TOTP on once code matches the pending secret.
func (a *App) ConfirmTOTP(ctx context.Context, p *Principal, code string) error {
	u := *p.User
	if u.TOTPPending == "" {
		return carteiro.InvalidState("no_pending_totp")
	}
	if err := a.checkUserTOTP(ctx, &u, u.TOTPPending, code); err != nil {
		if carteiro.ErrorCode(err) == carteiro.CodeUnauthorized {
			return carteiro.Invalid("code", "invalid_value")
		}
		return err
	}
	u.TOTPSecret, u.TOTPPending = u.TOTPPending, ""
	return storeErr(a.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.UpdateUser(ctx, &u); err != nil {
			return err
		}
		return a.audit(ctx, tx, u.OrgID, u.Email, carteiro.AuditTOTPEnabled, u.Email)
	}))
}

// DisableTOTP turns the caller's TOTP off. It takes the user's password
// and a current code, as the dashboard's other sensitive actions do (D73),
// so a session left open cannot remove the second factor.
func (a *App) DisableTOTP(ctx context.Context, p *Principal, password, code string) error {
	u := *p.User
	if !u.TOTPEnabled() {
		return carteiro.InvalidState("totp_not_enabled")
	}
	if err := a.checkUserReauth(ctx, &u, Reauth{Method: "password", Credential: password, TOTPCode: code}); err != nil {
		return err
	}
	u.TOTPSecret, u.TOTPPending = "", ""
	return storeErr(a.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.UpdateUser(ctx, &u); err != nil {
			return err
		}
		return a.audit(ctx, tx, u.OrgID, u.Email, carteiro.AuditTOTPDisabled, u.Email)
	}))
}
