package carteiro

import (
	"strings"
	"time"
)

// EmailStatus is where an email is in its life (3.1, D23).
type EmailStatus string

const (
	EmailScheduled  EmailStatus = "scheduled"
	EmailQueued     EmailStatus = "queued"
	EmailProcessing EmailStatus = "processing"
	EmailSent       EmailStatus = "sent"
	EmailDelivered  EmailStatus = "delivered"
	EmailBounced    EmailStatus = "bounced"
	EmailFailed     EmailStatus = "failed"
	EmailSkipped    EmailStatus = "skipped"
	EmailCancelled  EmailStatus = "cancelled"
)

// Address is a mailbox with an optional display name (D16). Email is the
// ASCII form (an internationalized domain is kept in punycode).
type Address struct {
	Name  string
	Email string
}

// String renders "Name <a@b.c>" when there is a name, else "a@b.c" (D16).
func (a Address) String() string {
	if a.Name == "" {
		return a.Email
	}
	if strings.ContainsAny(a.Name, ",;<>") {
		// Quoted, so that ParseAddress reads the name back whole rather
		// than as a second address (D67).
		return QuoteDisplayName(a.Name) + " <" + a.Email + ">"
	}
	return a.Name + " <" + a.Email + ">"
}

// QuoteDisplayName writes name as one RFC 5322 quoted string, escaping its
// quotes and backslashes.
func QuoteDisplayName(name string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(name); i++ {
		if c := name[i]; c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(name[i])
	}
	b.WriteByte('"')
	return b.String()
}

// Tag labels an email (D14).
type Tag struct {
	Name  string
	Value string
}

// Attachment is a file carried by an email (2.2, D19). Content is decoded.
type Attachment struct {
	Filename    string
	Content     []byte
	ContentType string
	Disposition string // attachment or inline
	CID         string // required for inline
}

// Email is one message as accepted by the API.
type Email struct {
	ID         string
	OrgID      string
	Mode       Mode
	Sandbox    bool
	APIKeyID   string
	APIKeyName string
	DomainID   string // the verified domain of From, empty for a verified sender or sandbox
	// BroadcastID names the broadcast this email was sent for, "" for
	// POST /emails; such emails honour marketing suppressions (D45).
	BroadcastID    string
	From           Address
	To             []Address
	Cc             []Address
	Bcc            []Address
	ReplyTo        []Address
	Subject        string
	HTML           string
	Text           string
	Headers        map[string]string
	Attachments    []Attachment
	Tags           []Tag
	Status         EmailStatus
	Attempts       int
	LastError      string
	MessageID      string
	IdempotencyKey string
	CreatedAt      time.Time
	ScheduledAt    *time.Time
	SentAt         *time.Time
	DeliveredAt    *time.Time
	BouncedAt      *time.Time
	FailedAt       *time.Time
	ComplainedAt   *time.Time
	SuppressedAt   *time.Time
	OpenedAt       *time.Time
	FirstClickedAt *time.Time
	OpenCount      int
	ClickCount     int
}

// Recipients lists every envelope recipient: to, cc, then bcc.
func (e *Email) Recipients() []Address {
	out := make([]Address, 0, len(e.To)+len(e.Cc)+len(e.Bcc))
	out = append(out, e.To...)
	out = append(out, e.Cc...)
	return append(out, e.Bcc...)
}

// RecipientStatus is the outcome for one recipient (D24).
type RecipientStatus string

const (
	RecipientPending    RecipientStatus = "pending"
	RecipientDeferred   RecipientStatus = "deferred"
	RecipientSent       RecipientStatus = "sent" // accepted by a relay, awaiting a DSN (D25)
	RecipientDelivered  RecipientStatus = "delivered"
	RecipientBounced    RecipientStatus = "bounced"
	RecipientFailed     RecipientStatus = "failed"
	RecipientSuppressed RecipientStatus = "suppressed"
)

// Final reports whether no more delivery attempts will be made.
func (s RecipientStatus) Final() bool {
	switch s {
	case RecipientDelivered, RecipientBounced, RecipientFailed, RecipientSuppressed:
		return true
	}
	return false
}

// EventType names a timeline event (2.3, D26).
type EventType string

const (
	EventQueued          EventType = "queued"
	EventScheduled       EventType = "scheduled"
	EventProcessing      EventType = "processing"
	EventSent            EventType = "sent"
	EventDelivered       EventType = "delivered"
	EventDeliveryDelayed EventType = "delivery_delayed"
	EventBounced         EventType = "bounced"
	EventComplained      EventType = "complained"
	EventFailed          EventType = "failed"
	EventSuppressed      EventType = "suppressed"
	EventOpened          EventType = "opened"
	EventClicked         EventType = "clicked"
	EventCancelled       EventType = "cancelled"
)

// EmailEvent is one entry of an email's timeline.
type EmailEvent struct {
	ID        string
	EmailID   string
	Type      EventType
	Timestamp time.Time
	Metadata  map[string]any
}

// Recipient is the delivery state of one envelope recipient of an email.
type Recipient struct {
	EmailID      string
	Position     int
	Address      string
	Status       RecipientStatus
	LastCode     int
	LastEnhanced string
	LastMessage  string
	UpdatedAt    time.Time
}

// Sender is a single-address identity verified by a token (2.13, D36).
type Sender struct {
	ID             string
	OrgID          string
	Email          string
	DisplayName    string
	TokenHash      string
	TokenExpiresAt time.Time
	TokenUsedAt    *time.Time
	VerifiedAt     *time.Time
	Active         bool
	CreatedAt      time.Time
}

// WebhookStatus is a webhook's state (3.5, D50).
type WebhookStatus string

const (
	WebhookActive   WebhookStatus = "active"
	WebhookPaused   WebhookStatus = "paused"
	WebhookDisabled WebhookStatus = "disabled"
)

// Webhook is a customer HTTPS endpoint that receives email events (2.11).
type Webhook struct {
	ID             string
	OrgID          string
	URL            string
	Events         []string
	Status         WebhookStatus
	Description    string
	Secret         string // sealed with the service secret; "" when none
	SecretPreview  string
	FailingSince   *time.Time
	FailedAttempts int
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// DeliveryStatus is a webhook delivery's state (3.6, D49).
type DeliveryStatus string

const (
	DeliveryPending   DeliveryStatus = "pending"
	DeliverySuccess   DeliveryStatus = "success"
	DeliveryFailed    DeliveryStatus = "failed"
	DeliveryExhausted DeliveryStatus = "exhausted"
)

// WebhookDelivery is one event sent (or to send) to one webhook (2.12).
type WebhookDelivery struct {
	ID             string
	WebhookID      string
	OrgID          string
	EmailEventID   string
	EventType      string
	Payload        []byte
	ResponseStatus int
	ResponseBody   string
	Attempts       int
	LastError      string
	Status         DeliveryStatus
	NextRunAt      time.Time
	CreatedAt      time.Time
}

// WebhookEventTypes are the event types a webhook may subscribe to (6).
var WebhookEventTypes = []string{
	"email.sent", "email.delivered", "email.bounced", "email.complained", "email.opened",
	"email.clicked", "email.failed", "email.suppressed", "email.delivery_delayed",
	"email.received", // D75: a message received for an inbound domain
}

// WebhookType maps a timeline event to its webhook event type, or "" when
// the event is not pushed (queued, processing and the like).
func WebhookType(t EventType) string {
	switch t {
	case EventSent, EventDelivered, EventBounced, EventComplained, EventOpened, EventClicked, EventFailed,
		EventSuppressed, EventDeliveryDelayed:
		return "email." + string(t)
	}
	return ""
}

// Suppression blocks mail to an address (2.10, D44 to D46).
type Suppression struct {
	ID        string
	OrgID     string
	Email     string
	Reason    string // manual, bounce, isp_block, mailbox_not_found, complaint, unsubscribe
	Source    string // manual or auto
	Category  string // all or marketing (D45)
	Status    string // active, expired, inactive
	ExpiresAt *time.Time
	CreatedAt time.Time
	UpdatedAt time.Time
}

// EffectiveStatus is the status at now: an active suppression past its
// expiresAt is expired (D46), whether or not a sweep has written it yet.
func (s *Suppression) EffectiveStatus(now time.Time) string {
	if s.Status == "active" && s.ExpiresAt != nil && !now.Before(*s.ExpiresAt) {
		return "expired"
	}
	return s.Status
}
