package carteiro

import (
	"time"

	"github.com/carteiro/carteiro/internal/mimeparse"
)

// InboundEmail is one message received for an inbound domain (D75): how it
// came (envelope, authentication results) and what it says. Its raw bytes
// are kept apart and read only when asked for.
type InboundEmail struct {
	ID       string
	OrgID    string
	DomainID string
	// MailFrom is the envelope sender ("" for the null sender); RcptTo the
	// envelope recipients of the domain's organization.
	MailFrom string
	RcptTo   []string
	// FromAddress is the From header's first address, lowercased: the
	// fromAddress filter and the erasure of a person (D78) use it.
	FromAddress string
	// SearchTo holds the To, Cc and envelope recipients, lowercased, for
	// the toAddress filter.
	SearchTo  string
	Subject   string
	MessageID string
	// InReplyToEmailID is the organization's email this one answers, ""
	// when In-Reply-To and References name none of them.
	InReplyToEmailID string
	// SPF, DKIM and DMARC are the result words of RFC 8601; AuthResults
	// the Authentication-Results value they make.
	SPF, DKIM, DMARC string
	AuthResults      string
	Message          *mimeparse.Message
	Size             int64
	ReceivedAt       time.Time
}
