package carteiro

import (
	"context"
	"iter"
	"net/http"
	"time"
)

// ContactsService manages the contacts of an audience (api-v1.md 4.4).
type ContactsService struct{ c *Client }

// Contact is an address of an audience (api-v1.md 2.8).
type Contact struct {
	ID        string         `json:"id"`
	Email     string         `json:"email"`
	FirstName *string        `json:"firstName"`
	LastName  *string        `json:"lastName"`
	Metadata  map[string]any `json:"metadata"`
	CreatedAt time.Time      `json:"createdAt"`
}

// CreateContactRequest is POST /audiences/{id}/contacts and an item of
// Import.
type CreateContactRequest struct {
	Email     string         `json:"email"`
	FirstName string         `json:"firstName,omitempty"`
	LastName  string         `json:"lastName,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// UpdateContactRequest is PUT /audiences/{id}/contacts/{contactId}: nil
// fields stay as they are; Null[string]() clears a name.
type UpdateContactRequest struct {
	FirstName *Nullable[string] `json:"firstName,omitempty"`
	LastName  *Nullable[string] `json:"lastName,omitempty"`
	Metadata  map[string]any    `json:"metadata,omitempty"`
}

// ContactList is one page of contacts and the total.
type ContactList struct {
	Contacts []Contact `json:"contacts"`
	Total    int       `json:"total"`
}

// ImportResult is the answer to Import: duplicates are skipped and named
// in Errors.
type ImportResult struct {
	Inserted int `json:"inserted"`
	Skipped  int `json:"skipped"`
	Errors   []struct {
		Email  string `json:"email"`
		Reason string `json:"reason"`
	} `json:"errors"`
}

// Create is POST /audiences/{audienceID}/contacts.
func (s *ContactsService) Create(ctx context.Context, audienceID string, req *CreateContactRequest) (*Contact, error) {
	var out Contact
	err := s.c.do(ctx, call{method: http.MethodPost, path: pathf("/audiences/%s/contacts", audienceID), body: req}, &out)
	return result(&out, err)
}

// Import is POST /audiences/{audienceID}/contacts/bulk: up to 10,000.
func (s *ContactsService) Import(ctx context.Context, audienceID string, contacts []CreateContactRequest) (*ImportResult, error) {
	var out ImportResult
	// Repeating an import skips what the first one inserted.
	err := s.c.do(ctx, call{method: http.MethodPost, path: pathf("/audiences/%s/contacts/bulk", audienceID),
		body: map[string]any{"contacts": contacts}, idempotent: true}, &out)
	return result(&out, err)
}

// ListPage is GET /audiences/{audienceID}/contacts: one page.
func (s *ContactsService) ListPage(ctx context.Context, audienceID string, p *PageParams) (*ContactList, error) {
	var out ContactList
	err := s.c.do(ctx, call{method: http.MethodGet, path: pathf("/audiences/%s/contacts", audienceID), query: p.values(), idempotent: true}, &out)
	return result(&out, err)
}

// List iterates over every contact of the audience, page after page.
func (s *ContactsService) List(ctx context.Context, audienceID string, p *PageParams) iter.Seq2[*Contact, error] {
	params := PageParams{}
	if p != nil {
		params = *p
	}
	return offsetPages(ctx, params.Offset, func(ctx context.Context, offset int) ([]Contact, int, error) {
		params.Offset = offset
		page, err := s.ListPage(ctx, audienceID, &params)
		if err != nil {
			return nil, 0, err
		}
		return page.Contacts, page.Total, nil
	})
}

// Update is PUT /audiences/{audienceID}/contacts/{contactID}.
func (s *ContactsService) Update(ctx context.Context, audienceID, contactID string, req *UpdateContactRequest) error {
	return s.c.do(ctx, call{method: http.MethodPut, path: pathf("/audiences/%s/contacts/%s", audienceID, contactID),
		body: req, idempotent: true}, nil)
}

// Delete is DELETE /audiences/{audienceID}/contacts/{contactID}.
func (s *ContactsService) Delete(ctx context.Context, audienceID, contactID string) error {
	return s.c.do(ctx, call{method: http.MethodDelete, path: pathf("/audiences/%s/contacts/%s", audienceID, contactID), idempotent: true}, nil)
}
