package carteiro

import (
	"context"
	"iter"
	"mime"
	"net/http"
	"net/url"
	"time"
)

// InboundEmailsService reads and deletes the mail received for the
// organization's inbound domains (D75); Domains.SetInbound turns receiving
// on.
type InboundEmailsService struct{ c *Client }

// maxReceived bounds what Raw and Attachment read: well above the
// listener's default 25 MB (CARTEIRO_INBOUND_MAX_SIZE), which an operator
// may raise.
const maxReceived = 1 << 30

// InboundAttachment is an attachment of a received message; its bytes are
// read with Attachment.
type InboundAttachment struct {
	ID          string `json:"id"`
	Filename    string `json:"filename"`
	ContentType string `json:"contentType"`
	// Size is the decoded size in bytes.
	Size int64 `json:"size"`
}

// InboundEmail is a received message as listed, without its bodies.
type InboundEmail struct {
	ID       string `json:"id"`
	DomainID string `json:"domainId"`
	// From is the From header's first address, with its display name.
	From      string   `json:"from"`
	To        []string `json:"to"`
	Cc        []string `json:"cc"`
	ReplyTo   []string `json:"replyTo"`
	Subject   string   `json:"subject"`
	MessageID *string  `json:"messageId"`
	// MailFrom is the envelope sender, "" for the null sender <>.
	MailFrom string `json:"mailFrom"`
	// RcptTo holds the envelope recipients of this organization.
	RcptTo []string `json:"rcptTo"`
	// SPF, DKIM and DMARC are result words of RFC 8601 (pass, fail, none,
	// ...); AuthenticationResults is the three as one header value.
	SPF                   string `json:"spf"`
	DKIM                  string `json:"dkim"`
	DMARC                 string `json:"dmarc"`
	AuthenticationResults string `json:"authenticationResults"`
	// InReplyToEmailID is the organization's email this message answers
	// (In-Reply-To or References), nil when none.
	InReplyToEmailID *string             `json:"inReplyToEmailId"`
	Attachments      []InboundAttachment `json:"attachments"`
	Size             int64               `json:"size"`
	ReceivedAt       time.Time           `json:"receivedAt"`
}

// InboundEmailDetail is a received message with its bodies: the first
// text/plain and text/html parts that are not attachments, decoded ("" when
// there is none).
type InboundEmailDetail struct {
	InboundEmail
	Text string `json:"text"`
	HTML string `json:"html"`
}

// InboundEmailListParams filters GET /inbound-emails. Zero fields are not
// sent.
type InboundEmailListParams struct {
	// FromAddress is a case-insensitive substring of the From address.
	FromAddress string
	// ToAddress is a case-insensitive substring of a To, Cc or envelope
	// recipient address.
	ToAddress string
	// From and To bound receivedAt: From inclusive, To exclusive.
	From, To time.Time
	// After is a NextCursor of a previous page; the iterator sets it.
	After string
	// Limit is the page size (at most 100).
	Limit int
}

func (p *InboundEmailListParams) values() url.Values {
	v := url.Values{}
	if p == nil {
		return v
	}
	setString(v, "fromAddress", p.FromAddress)
	setString(v, "toAddress", p.ToAddress)
	setTime(v, "from", p.From)
	setTime(v, "to", p.To)
	setString(v, "after", p.After)
	setInt(v, "limit", p.Limit)
	return v
}

// InboundEmailList is one page of received messages, newest first.
type InboundEmailList struct {
	InboundEmails []InboundEmail `json:"inboundEmails"`
	// NextCursor is nil on the last page.
	NextCursor *string `json:"nextCursor"`
}

// AttachmentContent is an attachment's decoded bytes (text parts in
// UTF-8), with the media type and file name the server gave them.
type AttachmentContent struct {
	ContentType string
	Filename    string
	Data        []byte
}

// ListPage is GET /inbound-emails: one page.
func (s *InboundEmailsService) ListPage(ctx context.Context, p *InboundEmailListParams) (*InboundEmailList, error) {
	var out InboundEmailList
	err := s.c.do(ctx, call{method: http.MethodGet, path: "/inbound-emails", query: p.values(), idempotent: true}, &out)
	return result(&out, err)
}

// List iterates over every received message matching p, newest first,
// following the cursors.
func (s *InboundEmailsService) List(ctx context.Context, p *InboundEmailListParams) iter.Seq2[*InboundEmail, error] {
	params := InboundEmailListParams{}
	if p != nil {
		params = *p
	}
	return cursorPages(ctx, func(ctx context.Context, after string) ([]InboundEmail, *string, error) {
		params.After = after
		page, err := s.ListPage(ctx, &params)
		if err != nil {
			return nil, nil, err
		}
		return page.InboundEmails, page.NextCursor, nil
	})
}

// Get is GET /inbound-emails/{id}: the message with its bodies.
func (s *InboundEmailsService) Get(ctx context.Context, id string) (*InboundEmailDetail, error) {
	var out InboundEmailDetail
	err := s.c.do(ctx, call{method: http.MethodGet, path: pathf("/inbound-emails/%s", id), idempotent: true}, &out)
	return result(&out, err)
}

// Raw is GET /inbound-emails/{id}/raw: the message byte for byte as
// received (message/rfc822, CRLF line ends).
func (s *InboundEmailsService) Raw(ctx context.Context, id string) ([]byte, error) {
	_, body, err := s.c.fetch(ctx, call{method: http.MethodGet, path: pathf("/inbound-emails/%s/raw", id),
		idempotent: true, accept: "message/rfc822", maxAnswer: maxReceived})
	return body, err
}

// Attachment is GET /inbound-emails/{id}/attachments/{attachmentId}: one
// attachment's decoded bytes. attachmentID is an InboundAttachment's ID.
func (s *InboundEmailsService) Attachment(ctx context.Context, id, attachmentID string) (*AttachmentContent, error) {
	resp, body, err := s.c.fetch(ctx, call{method: http.MethodGet,
		path:       pathf("/inbound-emails/%s/attachments/%s", id, attachmentID),
		idempotent: true, accept: "*/*", maxAnswer: maxReceived})
	if err != nil {
		return nil, err
	}
	out := &AttachmentContent{ContentType: resp.Header.Get("Content-Type"), Data: body}
	if _, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition")); err == nil {
		out.Filename = params["filename"]
	}
	return out, nil
}

// Delete is DELETE /inbound-emails/{id}: the message, its raw bytes and
// parts are deleted.
func (s *InboundEmailsService) Delete(ctx context.Context, id string) error {
	return s.c.do(ctx, call{method: http.MethodDelete, path: pathf("/inbound-emails/%s", id), idempotent: true}, nil)
}
