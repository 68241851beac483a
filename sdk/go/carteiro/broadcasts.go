package carteiro

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// BroadcastsService manages campaigns to an audience (api-v1.md 4.5).
type BroadcastsService struct{ c *Client }

// Broadcast is a campaign (api-v1.md 2.9).
type Broadcast struct {
	ID               string     `json:"id"`
	AudienceID       string     `json:"audienceId"`
	AudienceName     *string    `json:"audienceName"`
	TemplateID       *string    `json:"templateId"`
	Name             *string    `json:"name,omitempty"`
	Subject          string     `json:"subject"`
	FromEmail        string     `json:"fromEmail"`
	ReplyTo          *string    `json:"replyTo"`
	Status           string     `json:"status"`
	ScheduledAt      *time.Time `json:"scheduledAt"`
	SentAt           *time.Time `json:"sentAt"`
	CancelledAt      *time.Time `json:"cancelledAt"`
	RecipientsTotal  int        `json:"recipientsTotal"`
	RecipientsQueued int        `json:"recipientsQueued"`
	RecipientsFailed int        `json:"recipientsFailed"`
	CreatedAt        time.Time  `json:"createdAt"`
	UpdatedAt        time.Time  `json:"updatedAt"`
}

// CreateBroadcastRequest is POST /broadcasts: HTML (and Text) or a
// TemplateID with Variables.
type CreateBroadcastRequest struct {
	AudienceID  string         `json:"audienceId"`
	FromEmail   string         `json:"fromEmail"`
	Subject     string         `json:"subject"`
	HTML        string         `json:"html,omitempty"`
	Text        string         `json:"text,omitempty"`
	TemplateID  string         `json:"templateId,omitempty"`
	Variables   map[string]any `json:"variables,omitempty"`
	ReplyTo     string         `json:"replyTo,omitempty"`
	Name        string         `json:"name,omitempty"`
	ScheduledAt *time.Time     `json:"scheduledAt,omitempty"`
}

// BroadcastListParams filters GET /broadcasts.
type BroadcastListParams struct {
	Status   string
	From, To time.Time
	After    string
	Limit    int
}

// BroadcastList is one page of broadcasts.
type BroadcastList struct {
	Broadcasts []Broadcast `json:"broadcasts"`
	NextCursor *string     `json:"nextCursor"`
}

// BroadcastState is the answer to Send and Cancel.
type BroadcastState struct {
	ID          string     `json:"id"`
	Status      string     `json:"status"`
	CancelledAt *time.Time `json:"cancelledAt,omitempty"`
}

// Create is POST /broadcasts.
func (s *BroadcastsService) Create(ctx context.Context, req *CreateBroadcastRequest) (*Broadcast, error) {
	var out Broadcast
	err := s.c.do(ctx, call{method: http.MethodPost, path: "/broadcasts", body: req}, &out)
	return result(&out, err)
}

// ListPage is GET /broadcasts: one page.
func (s *BroadcastsService) ListPage(ctx context.Context, p *BroadcastListParams) (*BroadcastList, error) {
	q := url.Values{}
	if p != nil {
		setString(q, "status", p.Status)
		setTime(q, "from", p.From)
		setTime(q, "to", p.To)
		setString(q, "after", p.After)
		setInt(q, "limit", p.Limit)
	}
	var out BroadcastList
	err := s.c.do(ctx, call{method: http.MethodGet, path: "/broadcasts", query: q, idempotent: true}, &out)
	return result(&out, err)
}

// List iterates over every broadcast matching p, page after page.
func (s *BroadcastsService) List(ctx context.Context, p *BroadcastListParams) iter.Seq2[*Broadcast, error] {
	params := BroadcastListParams{}
	if p != nil {
		params = *p
	}
	return cursorPages(ctx, func(ctx context.Context, after string) ([]Broadcast, *string, error) {
		params.After = after
		page, err := s.ListPage(ctx, &params)
		if err != nil {
			return nil, nil, err
		}
		return page.Broadcasts, page.NextCursor, nil
	})
}

// Get is GET /broadcasts/{id}.
func (s *BroadcastsService) Get(ctx context.Context, id string) (*Broadcast, error) {
	var out Broadcast
	err := s.c.do(ctx, call{method: http.MethodGet, path: pathf("/broadcasts/%s", id), idempotent: true}, &out)
	return result(&out, err)
}

// Send is POST /broadcasts/{id}/send.
func (s *BroadcastsService) Send(ctx context.Context, id string) (*BroadcastState, error) {
	var out BroadcastState
	err := s.c.do(ctx, call{method: http.MethodPost, path: pathf("/broadcasts/%s/send", id)}, &out)
	return result(&out, err)
}

// Cancel is POST /broadcasts/{id}/cancel.
func (s *BroadcastsService) Cancel(ctx context.Context, id string) (*BroadcastState, error) {
	var out BroadcastState
	err := s.c.do(ctx, call{method: http.MethodPost, path: pathf("/broadcasts/%s/cancel", id)}, &out)
	return result(&out, err)
}
