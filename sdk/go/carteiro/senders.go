package carteiro

import (
	"context"
	"iter"
	"net/http"
	"time"
)

// SendersService manages single-address sender identities (api-v1.md 4.9).
type SendersService struct{ c *Client }

// Sender is a single-address identity (api-v1.md 2.13).
type Sender struct {
	ID          string     `json:"id"`
	Email       string     `json:"email"`
	DisplayName *string    `json:"displayName"`
	VerifiedAt  *time.Time `json:"verifiedAt"`
	Active      bool       `json:"active"`
	CreatedAt   time.Time  `json:"createdAt"`
	// VerificationToken is set only in Create's answer, and only where the
	// server shows it (test keys, D59); otherwise it is in the mailbox.
	VerificationToken *string `json:"verificationToken,omitempty"`
}

// CreateSenderRequest is POST /senders.
type CreateSenderRequest struct {
	Email       string `json:"email"`
	DisplayName string `json:"displayName,omitempty"`
}

// VerifiedSender is the answer to Verify.
type VerifiedSender struct {
	ID    string `json:"id"`
	Email string `json:"email"`
}

// Create is POST /senders: sends the verification email.
func (s *SendersService) Create(ctx context.Context, req *CreateSenderRequest) (*Sender, error) {
	var out Sender
	err := s.c.do(ctx, call{method: http.MethodPost, path: "/senders", body: req}, &out)
	return result(&out, err)
}

// ListPage is GET /senders: every sender in one answer.
func (s *SendersService) ListPage(ctx context.Context) ([]Sender, error) {
	var out struct {
		Senders []Sender `json:"senders"`
	}
	err := s.c.do(ctx, call{method: http.MethodGet, path: "/senders", idempotent: true}, &out)
	return out.Senders, err
}

// List iterates over GET /senders.
func (s *SendersService) List(ctx context.Context) iter.Seq2[*Sender, error] {
	return onePage(ctx, s.ListPage)
}

// Verify is POST /senders/verify with the token of the verification email.
func (s *SendersService) Verify(ctx context.Context, token string) (*VerifiedSender, error) {
	var out VerifiedSender
	err := s.c.do(ctx, call{method: http.MethodPost, path: "/senders/verify", body: map[string]string{"token": token}}, &out)
	return result(&out, err)
}

// Delete is DELETE /senders/{id}.
func (s *SendersService) Delete(ctx context.Context, id string) error {
	return s.c.do(ctx, call{method: http.MethodDelete, path: pathf("/senders/%s", id), idempotent: true}, nil)
}
