package carteiro

import (
	"strings"
	"time"
	"unicode/utf8"
)

// Audience is a contact list (2.7).
type Audience struct {
	ID            string
	OrgID         string
	Name          string
	Description   *string
	Active        bool
	ContactsCount int64
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Contact is one address of an audience (2.8). Email is unique in its
// audience regardless of case (D41).
type Contact struct {
	ID         string
	AudienceID string
	OrgID      string
	Email      string
	FirstName  *string
	LastName   *string
	Metadata   ContactMetadata
	CreatedAt  time.Time
}

// Audience and contact limits (2.7, 2.8, 8, D41; names and metadata size are
// ours, docs/audiences.md).
const (
	MaxAudienceName     = 255
	MaxAudienceDesc     = 1000
	MaxContactName      = 255
	MaxBulkContacts     = 10000
	MaxContactMetadata  = 8 << 10
	DefaultAudiencePage = 50
	MaxAudiencePage     = 200
	DefaultContactPage  = 100
	MaxContactPage      = 500
)

// ValidateAudience checks the fields a user sets.
func ValidateAudience(a *Audience) error {
	if n := utf8.RuneCountInString(a.Name); n == 0 || strings.TrimSpace(a.Name) == "" {
		return Invalid("name", "required")
	} else if n > MaxAudienceName {
		return Invalid("name", "too_long")
	}
	if a.Description != nil && utf8.RuneCountInString(*a.Description) > MaxAudienceDesc {
		return Invalid("description", "too_long")
	}
	return nil
}

// ContactEmail validates a contact's address (a bare address, D16 rules)
// and returns it with its case-insensitive key (D41).
func ContactEmail(field, s string) (email, key string, err error) {
	a, err := ParseAddress(field, s)
	if err != nil {
		return "", "", err
	}
	if a.Name != "" {
		return "", "", Invalid(field, "invalid_email")
	}
	return a.Email, strings.ToLower(a.Email), nil
}

// ValidateContactNames checks first and last names.
func ValidateContactNames(prefix string, first, last *string) error {
	for _, f := range []struct {
		name string
		v    *string
	}{{"firstName", first}, {"lastName", last}} {
		if f.v == nil {
			continue
		}
		if hasLineBreakOrNUL(*f.v) {
			// Names end up in personalised headers (D42): no line breaks.
			return Invalid(prefix+f.name, "header_injection")
		}
		if utf8.RuneCountInString(*f.v) > MaxContactName {
			return Invalid(prefix+f.name, "too_long")
		}
	}
	return nil
}
