package carteiro

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// EmailsService sends emails and reads them back (api-v1.md 4.1).
type EmailsService struct{ c *Client }

// SendEmailRequest is POST /emails and each item of a batch. Give Html,
// Text or TemplateID (with Variables). Addresses are "a@b.c" or
// "Name <a@b.c>".
type SendEmailRequest struct {
	From        string            `json:"from"`
	To          []string          `json:"to"`
	Subject     string            `json:"subject,omitempty"`
	HTML        string            `json:"html,omitempty"`
	Text        string            `json:"text,omitempty"`
	TemplateID  string            `json:"templateId,omitempty"`
	Variables   map[string]any    `json:"variables,omitempty"`
	Cc          []string          `json:"cc,omitempty"`
	Bcc         []string          `json:"bcc,omitempty"`
	ReplyTo     []string          `json:"replyTo,omitempty"`
	Attachments []Attachment      `json:"attachments,omitempty"`
	ScheduledAt *time.Time        `json:"scheduledAt,omitempty"`
	Tags        []Tag             `json:"tags,omitempty"`
	Headers     map[string]string `json:"headers,omitempty"`
	// IsSandbox simulates the sending: nothing is delivered.
	IsSandbox bool `json:"isSandbox,omitempty"`
	// IdempotencyKey makes a repeated send answer the first one (D22). The
	// client makes one up when it is empty, so its own retries are safe;
	// set it to make your own retries (a restarted job) safe as well.
	IdempotencyKey string `json:"idempotencyKey,omitempty"`
}

// Attachment is a file sent with an email. Content is the file's bytes
// (base64 on the wire).
type Attachment struct {
	Filename    string `json:"filename"`
	Content     []byte `json:"content"`
	ContentType string `json:"contentType"`
	// Disposition is "attachment" or "inline"; inline needs CID.
	Disposition string `json:"disposition"`
	CID         string `json:"cid,omitempty"`
}

// Tag is a name and value attached to an email, filterable in lists.
type Tag struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// SendEmailResult is the answer to a send.
type SendEmailResult struct {
	ID string `json:"id"`
	// Status is "queued", or "scheduled" with ScheduledAt.
	Status   string    `json:"status"`
	QueuedAt time.Time `json:"queuedAt"`
}

// BatchItemResult is the outcome of one item of SendBatch: Data when OK,
// else Error ("CODE: message").
type BatchItemResult struct {
	OK    bool             `json:"ok"`
	Data  *SendEmailResult `json:"data,omitempty"`
	Error string           `json:"error,omitempty"`
}

// Email is an email as read back (api-v1.md 2.1).
type Email struct {
	ID             string     `json:"id"`
	From           string     `json:"from"`
	To             []string   `json:"to"`
	Cc             []string   `json:"cc"`
	Bcc            []string   `json:"bcc"`
	Subject        *string    `json:"subject"`
	Status         string     `json:"status"`
	Attempts       int        `json:"attempts"`
	LastError      *string    `json:"lastError"`
	MessageID      *string    `json:"messageId"`
	CreatedAt      time.Time  `json:"createdAt"`
	ScheduledAt    *time.Time `json:"scheduledAt"`
	SentAt         *time.Time `json:"sentAt"`
	DeliveredAt    *time.Time `json:"deliveredAt"`
	BouncedAt      *time.Time `json:"bouncedAt"`
	FailedAt       *time.Time `json:"failedAt"`
	ComplainedAt   *time.Time `json:"complainedAt"`
	SuppressedAt   *time.Time `json:"suppressedAt"`
	OpenedAt       *time.Time `json:"openedAt"`
	FirstClickedAt *time.Time `json:"firstClickedAt"`
	OpenCount      int        `json:"openCount"`
	ClickCount     int        `json:"clickCount"`
	Tags           []Tag      `json:"tags"`
	HTML           *string    `json:"html"`
	Text           *string    `json:"text"`
	APIKey         *EmailKey  `json:"apiKey"`
}

// EmailKey is the API key an email was sent with.
type EmailKey struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// EmailListParams filters GET /emails. Zero fields are not sent.
type EmailListParams struct {
	// Status is an email status, or "complained".
	Status          string
	Recipient       string
	FromEmail       string
	SubjectContains string
	APIKeyID        string
	// Tag is "name" or "name:value".
	Tag      string
	From, To time.Time
	// After is a NextCursor of a previous page; the iterator sets it.
	After string
	// Limit is the page size (at most 100).
	Limit int
}

func (p *EmailListParams) values() url.Values {
	v := url.Values{}
	if p == nil {
		return v
	}
	setString(v, "status", p.Status)
	setString(v, "recipient", p.Recipient)
	setString(v, "fromEmail", p.FromEmail)
	setString(v, "subjectContains", p.SubjectContains)
	setString(v, "apiKeyId", p.APIKeyID)
	setString(v, "tag", p.Tag)
	setTime(v, "from", p.From)
	setTime(v, "to", p.To)
	setString(v, "after", p.After)
	setInt(v, "limit", p.Limit)
	return v
}

// EmailList is one page of emails, newest first.
type EmailList struct {
	Emails []Email `json:"emails"`
	// NextCursor is nil on the last page.
	NextCursor *string `json:"nextCursor"`
}

// TagSummary is a tag name and the values the organization used with it.
type TagSummary struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// EmailEvent is a step of an email's timeline (api-v1.md 2.3).
type EmailEvent struct {
	// Type is queued, scheduled, processing, sent, delivered,
	// delivery_delayed, bounced, complained, failed, suppressed, opened,
	// clicked or cancelled.
	Type      string         `json:"type"`
	Timestamp time.Time      `json:"timestamp"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// EmailTimeline is an email's events in chronological order.
type EmailTimeline struct {
	ID     string       `json:"id"`
	Events []EmailEvent `json:"events"`
}

// Send is POST /emails.
func (s *EmailsService) Send(ctx context.Context, req *SendEmailRequest) (*SendEmailResult, error) {
	key := req.IdempotencyKey
	if key == "" {
		key = newIdempotencyKey()
	}
	var out SendEmailResult
	err := s.c.do(ctx, call{method: http.MethodPost, path: "/emails", body: req, idempotencyKey: key}, &out)
	return result(&out, err)
}

// SendBatch is POST /emails/batch: 1 to 100 emails, each accepted or
// refused on its own. Items without an idempotency key get one, so a
// retried batch sends no item twice.
func (s *EmailsService) SendBatch(ctx context.Context, reqs []SendEmailRequest) ([]BatchItemResult, error) {
	items := make([]SendEmailRequest, len(reqs))
	for i, r := range reqs {
		if r.IdempotencyKey == "" {
			r.IdempotencyKey = newIdempotencyKey()
		}
		items[i] = r
	}
	var out []BatchItemResult
	err := s.c.do(ctx, call{method: http.MethodPost, path: "/emails/batch", body: items, idempotent: true}, &out)
	return out, err
}

// ListPage is GET /emails: one page.
func (s *EmailsService) ListPage(ctx context.Context, p *EmailListParams) (*EmailList, error) {
	var out EmailList
	err := s.c.do(ctx, call{method: http.MethodGet, path: "/emails", query: p.values(), idempotent: true}, &out)
	return result(&out, err)
}

// List iterates over every email matching p, newest first, page after page.
func (s *EmailsService) List(ctx context.Context, p *EmailListParams) iter.Seq2[*Email, error] {
	params := EmailListParams{}
	if p != nil {
		params = *p
	}
	return cursorPages(ctx, func(ctx context.Context, after string) ([]Email, *string, error) {
		params.After = after
		page, err := s.ListPage(ctx, &params)
		if err != nil {
			return nil, nil, err
		}
		return page.Emails, page.NextCursor, nil
	})
}

// Tags is GET /emails/tags: the distinct tags the organization used.
func (s *EmailsService) Tags(ctx context.Context) ([]TagSummary, error) {
	var out struct {
		Tags []TagSummary `json:"tags"`
	}
	err := s.c.do(ctx, call{method: http.MethodGet, path: "/emails/tags", idempotent: true}, &out)
	return out.Tags, err
}

// ListTags iterates over Tags, as every list does.
func (s *EmailsService) ListTags(ctx context.Context) iter.Seq2[*TagSummary, error] {
	return onePage(ctx, s.Tags)
}

// Get is GET /emails/{id}.
func (s *EmailsService) Get(ctx context.Context, id string) (*Email, error) {
	var out Email
	err := s.c.do(ctx, call{method: http.MethodGet, path: pathf("/emails/%s", id), idempotent: true}, &out)
	return result(&out, err)
}

// Events is GET /emails/{id}/events: the email's timeline.
func (s *EmailsService) Events(ctx context.Context, id string) (*EmailTimeline, error) {
	var out EmailTimeline
	err := s.c.do(ctx, call{method: http.MethodGet, path: pathf("/emails/%s/events", id), idempotent: true}, &out)
	return result(&out, err)
}

// ListEvents iterates over the email's timeline, as every list does.
func (s *EmailsService) ListEvents(ctx context.Context, id string) iter.Seq2[*EmailEvent, error] {
	return onePage(ctx, func(ctx context.Context) ([]EmailEvent, error) {
		tl, err := s.Events(ctx, id)
		if err != nil {
			return nil, err
		}
		return tl.Events, nil
	})
}

// Cancel is POST /emails/{id}/cancel: only a scheduled email.
func (s *EmailsService) Cancel(ctx context.Context, id string) error {
	return s.c.do(ctx, call{method: http.MethodPost, path: pathf("/emails/%s/cancel", id)}, nil)
}

// Resend is POST /emails/{id}/resend: a failed or cancelled email again,
// under a new id.
func (s *EmailsService) Resend(ctx context.Context, id string) (*SendEmailResult, error) {
	var out SendEmailResult
	err := s.c.do(ctx, call{method: http.MethodPost, path: pathf("/emails/%s/resend", id)}, &out)
	return result(&out, err)
}

// result returns v, or nil with the error.
func result[T any](v *T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return v, nil
}

func setString(v url.Values, k, s string) {
	if s != "" {
		v.Set(k, s)
	}
}

func setInt(v url.Values, k string, n int) {
	if n != 0 {
		v.Set(k, strconv.Itoa(n))
	}
}

func setTime(v url.Values, k string, t time.Time) {
	if !t.IsZero() {
		v.Set(k, t.UTC().Format(time.RFC3339Nano))
	}
}
