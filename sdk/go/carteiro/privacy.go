package carteiro

import (
	"context"
	"net/http"
)

// PrivacyService erases a person's data (D78).
type PrivacyService struct{ c *Client }

// Erasure counts what Erase removed.
type Erasure struct {
	ContactsDeleted int `json:"contactsDeleted"`
	EmailsRedacted  int `json:"emailsRedacted"`
	InboundDeleted  int `json:"inboundDeleted"`
}

// Erase is POST /privacy/erase: the address's contacts are deleted, its
// emails redacted, and a suppression keeps it from being mailed again.
func (s *PrivacyService) Erase(ctx context.Context, email string) (*Erasure, error) {
	var out Erasure
	// Erasing twice erases nothing more.
	err := s.c.do(ctx, call{method: http.MethodPost, path: "/privacy/erase", body: map[string]string{"email": email}, idempotent: true}, &out)
	return result(&out, err)
}
