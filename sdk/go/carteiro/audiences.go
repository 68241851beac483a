package carteiro

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// AudiencesService manages contact lists (api-v1.md 4.4). Their contacts
// are in ContactsService.
type AudiencesService struct{ c *Client }

// Audience is a contact list (api-v1.md 2.7).
type Audience struct {
	ID            string    `json:"id"`
	Name          string    `json:"name"`
	Description   *string   `json:"description"`
	Active        bool      `json:"active"`
	ContactsCount int       `json:"contactsCount"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
}

// CreateAudienceRequest is POST /audiences.
type CreateAudienceRequest struct {
	Name        string  `json:"name"`
	Description *string `json:"description,omitempty"`
	Active      *bool   `json:"active,omitempty"`
}

// UpdateAudienceRequest is PUT /audiences/{id}: nil fields stay as they
// are; Null[string]() clears the description.
type UpdateAudienceRequest struct {
	Name        string            `json:"name,omitempty"`
	Description *Nullable[string] `json:"description,omitempty"`
	Active      *bool             `json:"active,omitempty"`
}

// PageParams is the offset pagination of audiences and contacts.
type PageParams struct {
	Limit, Offset int
}

func (p *PageParams) values() url.Values {
	q := url.Values{}
	if p != nil {
		setInt(q, "limit", p.Limit)
		setInt(q, "offset", p.Offset)
	}
	return q
}

// AudienceList is one page of audiences and the total.
type AudienceList struct {
	Audiences []Audience `json:"audiences"`
	Total     int        `json:"total"`
}

// Create is POST /audiences.
func (s *AudiencesService) Create(ctx context.Context, req *CreateAudienceRequest) (*Audience, error) {
	var out Audience
	err := s.c.do(ctx, call{method: http.MethodPost, path: "/audiences", body: req}, &out)
	return result(&out, err)
}

// ListPage is GET /audiences: one page.
func (s *AudiencesService) ListPage(ctx context.Context, p *PageParams) (*AudienceList, error) {
	var out AudienceList
	err := s.c.do(ctx, call{method: http.MethodGet, path: "/audiences", query: p.values(), idempotent: true}, &out)
	return result(&out, err)
}

// List iterates over every audience, page after page.
func (s *AudiencesService) List(ctx context.Context, p *PageParams) iter.Seq2[*Audience, error] {
	params := PageParams{}
	if p != nil {
		params = *p
	}
	return offsetPages(ctx, params.Offset, func(ctx context.Context, offset int) ([]Audience, int, error) {
		params.Offset = offset
		page, err := s.ListPage(ctx, &params)
		if err != nil {
			return nil, 0, err
		}
		return page.Audiences, page.Total, nil
	})
}

// Get is GET /audiences/{id}.
func (s *AudiencesService) Get(ctx context.Context, id string) (*Audience, error) {
	var out Audience
	err := s.c.do(ctx, call{method: http.MethodGet, path: pathf("/audiences/%s", id), idempotent: true}, &out)
	return result(&out, err)
}

// Update is PUT /audiences/{id}.
func (s *AudiencesService) Update(ctx context.Context, id string, req *UpdateAudienceRequest) error {
	return s.c.do(ctx, call{method: http.MethodPut, path: pathf("/audiences/%s", id), body: req, idempotent: true}, nil)
}

// Delete is DELETE /audiences/{id}, with its contacts.
func (s *AudiencesService) Delete(ctx context.Context, id string) error {
	return s.c.do(ctx, call{method: http.MethodDelete, path: pathf("/audiences/%s", id), idempotent: true}, nil)
}
