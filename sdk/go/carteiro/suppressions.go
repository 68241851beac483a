package carteiro

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// SuppressionsService manages the addresses mail must not go to
// (api-v1.md 4.6).
type SuppressionsService struct{ c *Client }

// Suppression is a blocked address (api-v1.md 2.10).
type Suppression struct {
	ID       string `json:"id"`
	Email    string `json:"email"`
	Reason   string `json:"reason"`
	Source   string `json:"source"`
	Category string `json:"category"`
	// Status is active, expired or inactive.
	Status    string     `json:"status"`
	ExpiresAt *time.Time `json:"expiresAt"`
	CreatedAt time.Time  `json:"createdAt"`
}

// CreateSuppressionRequest is POST /suppressions. Reason is manual (the
// default), bounce or complaint.
type CreateSuppressionRequest struct {
	Email     string     `json:"email"`
	Reason    string     `json:"reason,omitempty"`
	ExpiresAt *time.Time `json:"expiresAt,omitempty"`
}

// SuppressionListParams filters GET /suppressions; without Status only
// active ones are listed.
type SuppressionListParams struct {
	Status string
	Reason string
	// Email is a case-insensitive substring of the address.
	Email string
	After string
	Limit int
}

// SuppressionList is one page of suppressions.
type SuppressionList struct {
	Suppressions []Suppression `json:"suppressions"`
	NextCursor   *string       `json:"nextCursor"`
}

// Create is POST /suppressions.
func (s *SuppressionsService) Create(ctx context.Context, req *CreateSuppressionRequest) (*Suppression, error) {
	var out Suppression
	err := s.c.do(ctx, call{method: http.MethodPost, path: "/suppressions", body: req}, &out)
	return result(&out, err)
}

// ListPage is GET /suppressions: one page.
func (s *SuppressionsService) ListPage(ctx context.Context, p *SuppressionListParams) (*SuppressionList, error) {
	q := url.Values{}
	if p != nil {
		setString(q, "status", p.Status)
		setString(q, "reason", p.Reason)
		setString(q, "email", p.Email)
		setString(q, "after", p.After)
		setInt(q, "limit", p.Limit)
	}
	var out SuppressionList
	err := s.c.do(ctx, call{method: http.MethodGet, path: "/suppressions", query: q, idempotent: true}, &out)
	return result(&out, err)
}

// List iterates over every suppression matching p, newest first.
func (s *SuppressionsService) List(ctx context.Context, p *SuppressionListParams) iter.Seq2[*Suppression, error] {
	params := SuppressionListParams{}
	if p != nil {
		params = *p
	}
	return cursorPages(ctx, func(ctx context.Context, after string) ([]Suppression, *string, error) {
		params.After = after
		page, err := s.ListPage(ctx, &params)
		if err != nil {
			return nil, nil, err
		}
		return page.Suppressions, page.NextCursor, nil
	})
}

// Get is GET /suppressions/{id}.
func (s *SuppressionsService) Get(ctx context.Context, id string) (*Suppression, error) {
	var out Suppression
	err := s.c.do(ctx, call{method: http.MethodGet, path: pathf("/suppressions/%s", id), idempotent: true}, &out)
	return result(&out, err)
}

// Delete is DELETE /suppressions/{id}.
func (s *SuppressionsService) Delete(ctx context.Context, id string) error {
	return s.c.do(ctx, call{method: http.MethodDelete, path: pathf("/suppressions/%s", id), idempotent: true}, nil)
}

// Reactivate is POST /suppressions/{id}/reactivate: the address may
// receive mail again.
func (s *SuppressionsService) Reactivate(ctx context.Context, id string) error {
	return s.c.do(ctx, call{method: http.MethodPost, path: pathf("/suppressions/%s/reactivate", id), idempotent: true}, nil)
}
