package carteiro

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// Role is what a dashboard user may do in its organization (D73).
type Role string

const (
	// RoleOwner may do everything, including managing API keys and users.
	RoleOwner Role = "owner"
	// RoleMember may do everything but manage API keys and users and
	// delete domains.
	RoleMember Role = "member"
)

// ValidRole reports whether r is one of D73's two roles.
func ValidRole(r Role) bool { return r == RoleOwner || r == RoleMember }

// User is a person who signs in to the dashboard. Its email is unique
// across the service, since login names no organization (docs/dashboard.md).
type User struct {
	ID    string
	OrgID string
	Email string
	Role  Role
	// PasswordHash is an argon2id hash (D73).
	PasswordHash string
	// TOTPSecret is sealed with the service secret; empty when TOTP is off.
	// TOTPPending is a secret made but not yet confirmed with a code.
	TOTPSecret  string
	TOTPPending string
	// Language is pt-BR, en or es; empty follows Accept-Language.
	Language  string
	CreatedAt time.Time
}

// TOTPEnabled reports whether signing in needs a code.
func (u *User) TOTPEnabled() bool { return u.TOTPSecret != "" }

// Session is a signed-in browser. Only the SHA-256 of its id is stored, so
// a copy of the database lets nobody in (D73).
type Session struct {
	IDHash     string
	UserID     string
	OrgID      string
	CSRFToken  string
	CreatedAt  time.Time
	LastSeenAt time.Time
}

// Session lifetimes of D73.
const (
	SessionIdleTimeout = 12 * time.Hour
	SessionMaxAge      = 7 * 24 * time.Hour
	// SetupTokenTTL is how long the first start's setup link works.
	SetupTokenTTL = 24 * time.Hour
)

// Expired reports whether the session has ended at now: idle too long or
// older than the maximum age.
func (s *Session) Expired(now time.Time) bool {
	return now.Sub(s.LastSeenAt) >= SessionIdleTimeout || now.Sub(s.CreatedAt) >= SessionMaxAge
}

// HashToken is the stored form of a session id or setup token.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// AuditEntry records who created or removed a credential or a user.
type AuditEntry struct {
	ID     string
	OrgID  string
	At     time.Time
	Actor  string // the user's email, or "cli"
	Action string // api_key.created, api_key.revoked, user.created, ...
	Target string // the object's id and name
}

// Audit actions.
const (
	AuditKeyCreated     = "api_key.created"
	AuditKeyRevoked     = "api_key.revoked"
	AuditUserCreated    = "user.created"
	AuditUserDeleted    = "user.deleted"
	AuditUserRole       = "user.role_changed"
	AuditPasswordChange = "user.password_changed"
	AuditTOTPEnabled    = "user.totp_enabled"
	AuditTOTPDisabled   = "user.totp_disabled"
)
