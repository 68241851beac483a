package carteiro

import (
	"time"
	"unicode/utf8"
)

// BroadcastStatus is where a broadcast is in its life (3.2, D43).
type BroadcastStatus string

const (
	BroadcastDraft     BroadcastStatus = "draft"
	BroadcastScheduled BroadcastStatus = "scheduled"
	BroadcastSending   BroadcastStatus = "sending"
	BroadcastSent      BroadcastStatus = "sent"
	BroadcastFailed    BroadcastStatus = "failed"
	BroadcastCancelled BroadcastStatus = "cancelled"
)

// ValidBroadcastStatus reports whether s names a status (for list filters).
func ValidBroadcastStatus(s string) bool {
	switch BroadcastStatus(s) {
	case BroadcastDraft, BroadcastScheduled, BroadcastSending, BroadcastSent, BroadcastFailed, BroadcastCancelled:
		return true
	}
	return false
}

// Broadcast is one message sent to every contact of an audience (2.9).
type Broadcast struct {
	ID           string
	OrgID        string
	Mode         Mode
	AudienceID   string
	AudienceName *string // read from the audience, null once it is gone
	Name         *string
	TemplateID   *string
	Subject      string
	From         Address
	ReplyTo      *Address
	HTML         *string
	Text         *string
	// Variables are the broadcast's own values, under the contact's (D42).
	Variables        *JSONObject
	Status           BroadcastStatus
	ScheduledAt      *time.Time
	SentAt           *time.Time
	CancelledAt      *time.Time
	RecipientsTotal  int64
	RecipientsQueued int64
	RecipientsFailed int64
	// CursorCreatedAt and CursorID are the fan-out's position: the last
	// contact split into chunks, in (createdAt, id) order.
	CursorCreatedAt int64
	CursorID        string
	// ChunksPending counts the fan-out's chunks not yet handed over.
	ChunksPending int64
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// MaxBroadcastName bounds the optional name.
const MaxBroadcastName = 255

// ValidateBroadcastName checks the optional name.
func ValidateBroadcastName(name *string) error {
	if name != nil && utf8.RuneCountInString(*name) > MaxBroadcastName {
		return Invalid("name", "too_long")
	}
	return nil
}
