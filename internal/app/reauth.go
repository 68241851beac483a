package app

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"crypto/subtle"
	"encoding/base32"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"golang.org/x/crypto/argon2"

	"github.com/carteiro/carteiro"
)

// Reauthentication of D8: a password (argon2id) and/or a TOTP secret
// (RFC 6238, SHA-1, 30-second steps, 6 digits, one step of drift allowed).

const (
	argonTime    = 2
	argonMemory  = 64 * 1024
	argonThreads = 2
	argonKeyLen  = 32
)

func hashPassword(password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("password salt: %w", err)
	}
	sum := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=19$m=%d,t=%d,p=%d$%s$%s", argonMemory, argonTime, argonThreads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(sum)), nil
}

func checkPassword(encoded, password string) bool {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var m, t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil {
		return false
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	want, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// totpCode is the RFC 6238 code of secret at step counter.
func totpCode(secret []byte, counter uint64) string {
	var msg [8]byte
	binary.BigEndian.PutUint64(msg[:], counter)
	mac := hmac.New(sha1.New, secret)
	mac.Write(msg[:])
	sum := mac.Sum(nil)
	off := sum[len(sum)-1] & 0x0f
	v := binary.BigEndian.Uint32(sum[off:off+4]) & 0x7fffffff
	return fmt.Sprintf("%06d", v%1_000_000)
}

// matchTOTP returns the time step whose code is code, among the current
// step and its two neighbours, or false.
func matchTOTP(secret []byte, code string, now time.Time) (uint64, bool) {
	step := uint64(now.Unix() / 30)
	for _, c := range []uint64{step - 1, step, step + 1} {
		if subtle.ConstantTimeCompare([]byte(totpCode(secret, c)), []byte(code)) == 1 {
			return c, true
		}
	}
	return 0, false
}

// SetPassword sets the organization's reauthentication password (D8).
func (a *App) SetPassword(ctx context.Context, orgID, password string) error {
	if len(password) < 8 {
		return carteiro.Invalid("password", "too_short")
	}
	org, err := a.store.Organization(ctx, orgID)
	if err != nil {
		return storeErr(err)
	}
	h, err := hashPassword(password)
	if err != nil {
		return &carteiro.Error{Code: carteiro.CodeInternal, Err: err}
	}
	return storeErr(a.store.SetOrganizationReauth(ctx, orgID, h, org.TOTPSecret))
}

// EnableTOTP creates a TOTP secret for the organization and returns it in
// base32 with an otpauth:// URL for authenticator apps.
func (a *App) EnableTOTP(ctx context.Context, orgID string) (secretB32, otpauthURL string, err error) {
	org, err := a.store.Organization(ctx, orgID)
	if err != nil {
		return "", "", storeErr(err)
	}
	sealed, secretB32, err := a.newTOTPSecret()
	if err != nil {
		return "", "", err
	}
	if err := a.store.SetOrganizationReauth(ctx, orgID, org.PasswordHash, sealed); err != nil {
		return "", "", storeErr(err)
	}
	otpauthURL = "otpauth://totp/Carteiro:" + org.ID + "?secret=" + secretB32 + "&issuer=Carteiro"
	return secretB32, otpauthURL, nil
}

// newTOTPSecret makes a 160-bit TOTP secret, sealed for the store and in
// base32 for the authenticator app.
func (a *App) newTOTPSecret() (sealed, secretB32 string, err error) {
	raw := make([]byte, 20)
	if _, err := rand.Read(raw); err != nil {
		return "", "", fmt.Errorf("totp secret: %w", err)
	}
	if sealed, err = a.box.Seal(raw); err != nil {
		return "", "", fmt.Errorf("seal totp secret: %w", err)
	}
	return sealed, base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(raw), nil
}

// Reauth is the credential carried by DELETE /domains/:id.
type Reauth struct {
	Method     string // totp or password
	Credential string
	// TOTPCode is a dashboard user's code, asked beside the password when
	// the user has TOTP on.
	TOTPCode string
}

// checkUserReauth is D8's reauthentication for a dashboard user: the
// user's own password, and code when the user has TOTP on (D73).
func (a *App) checkUserReauth(ctx context.Context, u *carteiro.User, r Reauth) error {
	if r.Credential == "" || (u.TOTPEnabled() && r.TOTPCode == "") {
		return &carteiro.Error{Code: carteiro.CodeReauthRequired}
	}
	if r.Method != "password" || !checkPassword(u.PasswordHash, r.Credential) {
		return &carteiro.Error{Code: carteiro.CodeReauthFailed}
	}
	if u.TOTPEnabled() {
		if err := a.checkUserTOTP(ctx, u, u.TOTPSecret, r.TOTPCode); err != nil {
			if carteiro.ErrorCode(err) == carteiro.CodeUnauthorized {
				return &carteiro.Error{Code: carteiro.CodeReauthFailed}
			}
			return err
		}
	}
	return nil
}

// checkReauth enforces D8: when the organization has a password or TOTP
// secret, the request must carry a matching credential. A TOTP code is
// single-use (D63): its time step is claimed in the store, so a code seen
// once (on any node) is refused within the rest of its 90-second window.
func (a *App) checkReauth(ctx context.Context, org *carteiro.Organization, r Reauth) error {
	if !org.NeedsReauth() {
		return nil
	}
	if r.Method == "" || r.Credential == "" {
		return &carteiro.Error{Code: carteiro.CodeReauthRequired}
	}
	switch r.Method {
	case "password":
		if org.PasswordHash != "" && checkPassword(org.PasswordHash, r.Credential) {
			return nil
		}
	case "totp":
		if org.TOTPSecret != "" {
			secret, err := a.box.Open(org.TOTPSecret)
			if err != nil {
				return &carteiro.Error{Code: carteiro.CodeInternal, Err: fmt.Errorf("open totp secret: %w", err)}
			}
			if step, ok := matchTOTP(secret, r.Credential, a.clock.Now()); ok {
				claimed, err := a.store.ClaimTOTPStep(ctx, org.ID, int64(step))
				if err != nil {
					return storeErr(err)
				}
				if claimed {
					return nil
				}
			}
		}
	default:
		return carteiro.Invalid("method", "invalid_value")
	}
	return &carteiro.Error{Code: carteiro.CodeReauthFailed}
}
