package carteiro

import (
	"strings"
	"time"
)

// DomainStatus is the verification state of a sender domain (3.3, D32).
type DomainStatus string

const (
	DomainPending  DomainStatus = "pending"
	DomainVerified DomainStatus = "verified"
	DomainFailed   DomainStatus = "failed"
)

// UnverifiedDeadline is how long a new domain may stay unverified before it
// becomes failed (D32).
const UnverifiedDeadline = 72 * time.Hour

// Domain is a sender domain of one organization.
type Domain struct {
	ID             string
	OrgID          string
	Name           string
	Status         DomainStatus
	DKIMSelector   string
	DKIMPublicKey  string // base64 DER (SubjectPublicKeyInfo), as published in DNS
	DKIMPrivateKey string // sealed with the service secret; never in clear text at rest
	OwnershipToken string
	VerifiedAt     *time.Time
	LastCheckAt    *time.Time
	CreatedAt      time.Time
	DeletedAt      *time.Time
	// WarmupStartedAt is when the domain was first verified: day 1 of its
	// warmup (D34).
	WarmupStartedAt *time.Time
	// InboundEnabledAt is when receiving mail for the domain was turned
	// on (D75); nil while it is off.
	InboundEnabledAt *time.Time
}

// Record kinds of D31.
const (
	RecordOwnership = "ownership"
	RecordDKIM      = "dkim"
	RecordSPF       = "spf"
	RecordDMARC     = "dmarc"
	// RecordMX is the inbound MX of D75, listed while inbound is on.
	RecordMX = "mx"
)

// InboundMXPriority is the preference of the MX record D75 asks for.
const InboundMXPriority = 10

// DNSRecord is one record the customer publishes for a domain (D31).
type DNSRecord struct {
	Record   string // ownership, dkim, spf or dmarc
	Type     string // TXT or CNAME
	Host     string
	Value    string
	TTL      int
	Required bool
	// Priority is the MX preference; 0 for other types.
	Priority int
}

// SuggestedTTL is the TTL proposed for every record.
const SuggestedTTL = 3600

// Records lists what must be published for d, in the order of D31.
// bounceHost is the target of the return-path CNAME.
func (d *Domain) Records(bounceHost string) []DNSRecord {
	return []DNSRecord{
		{Record: RecordOwnership, Type: "TXT", Host: "_carteiro." + d.Name, Value: "carteiro-verification=" + d.OwnershipToken, TTL: SuggestedTTL, Required: true},
		{Record: RecordDKIM, Type: "TXT", Host: d.DKIMSelector + "._domainkey." + d.Name, Value: "v=DKIM1; k=rsa; p=" + d.DKIMPublicKey, TTL: SuggestedTTL, Required: true},
		{Record: RecordSPF, Type: "CNAME", Host: "bounces." + d.Name, Value: bounceHost, TTL: SuggestedTTL, Required: true},
		{Record: RecordDMARC, Type: "TXT", Host: "_dmarc." + d.Name, Value: "v=DMARC1; p=none;", TTL: SuggestedTTL, Required: false},
	}
}

// RecordsWithInbound is Records plus, while inbound is on, the MX that
// routes the domain's mail to inboundHost (D75). The MX is checked by
// verify but not required: sending works without it.
func (d *Domain) RecordsWithInbound(bounceHost, inboundHost string) []DNSRecord {
	records := d.Records(bounceHost)
	if d.InboundEnabledAt != nil {
		records = append(records, d.InboundMX(inboundHost))
	}
	return records
}

// InboundMX is the MX record that routes the domain's mail to inboundHost.
func (d *Domain) InboundMX(inboundHost string) DNSRecord {
	return DNSRecord{Record: RecordMX, Type: "MX", Host: d.Name, Value: inboundHost, TTL: SuggestedTTL, Priority: InboundMXPriority}
}

// CheckStatus is the outcome of looking one record up.
type CheckStatus string

const (
	CheckPass    CheckStatus = "pass"
	CheckFail    CheckStatus = "fail"
	CheckPending CheckStatus = "pending"
)

// RecordCheck compares what was expected with what DNS returned.
type RecordCheck struct {
	Status   CheckStatus
	Expected string
	Found    []string
}

// DomainChecks holds one check per record kind (D32).
type DomainChecks map[string]RecordCheck

// Outcome sums the required records' checks: pass when all passed, fail
// when one failed, pending when DNS could not tell (a temporary error).
func (c DomainChecks) Outcome(records []DNSRecord) CheckStatus {
	out := CheckPass
	for _, r := range records {
		if !r.Required {
			continue
		}
		switch c[r.Record].Status {
		case CheckPass:
		case CheckPending:
			out = CheckPending
		default:
			return CheckFail
		}
	}
	return out
}

// RequiredPass reports whether every required record of records passed.
func (c DomainChecks) RequiredPass(records []DNSRecord) bool {
	return c.Outcome(records) == CheckPass
}

// ApplyCheck moves d to the status a DNS check at now implies (D32):
// verified when every required record passes; a verified domain whose
// records are gone fails at once, but a resolver that could not answer
// changes nothing; a pending domain fails when it is older than
// UnverifiedDeadline.
func (d *Domain) ApplyCheck(outcome CheckStatus, now time.Time) {
	t := now
	d.LastCheckAt = &t
	passed := outcome == CheckPass
	switch {
	case outcome == CheckPending && d.Status == DomainVerified:
		// A temporary DNS failure is no evidence the records are gone.
	case passed:
		if d.Status != DomainVerified {
			d.VerifiedAt = &t
		}
		if d.WarmupStartedAt == nil {
			d.WarmupStartedAt = &t
		}
		d.Status = DomainVerified
	case d.Status == DomainVerified:
		d.Status = DomainFailed
	default:
		d.ExpireIfStale(now)
	}
}

// ExpireIfStale fails a domain that has been unverified past the deadline.
func (d *Domain) ExpireIfStale(now time.Time) bool {
	if d.Status == DomainPending && now.Sub(d.CreatedAt) >= UnverifiedDeadline {
		d.Status = DomainFailed
		return true
	}
	return false
}

// NormalizeDomainName lowercases a name and strips one trailing dot.
func NormalizeDomainName(name string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(name)), ".")
}

// ValidDomainName reports whether name is a syntactically valid FQDN with at
// least two labels, each 1 to 63 letters, digits or hyphens, not starting or
// ending with a hyphen, 253 characters at most. Internationalized names are
// expected in their punycode (xn--) form.
func ValidDomainName(name string) bool {
	if len(name) == 0 || len(name) > 253 {
		return false
	}
	labels := strings.Split(name, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if len(l) == 0 || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, c := range l {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	// The top-level label is never all digits, which also refuses IP addresses.
	tld := labels[len(labels)-1]
	return strings.Trim(tld, "0123456789") != ""
}
