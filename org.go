package carteiro

import "time"

// Organization owns every object; no key reaches another organization's objects.
type Organization struct {
	ID   string
	Name string
	// PasswordHash is an argon2id hash; empty when no password is set (D8).
	PasswordHash string
	// TOTPSecret is sealed with the service secret; empty when TOTP is off (D8).
	TOTPSecret string
	CreatedAt  time.Time
}

// NeedsReauth reports whether deleting a domain must carry a credential (D8).
func (o *Organization) NeedsReauth() bool {
	return o.PasswordHash != "" || o.TOTPSecret != ""
}
