package carteiro

import (
	"context"
	"iter"
	"net/http"
	"time"
)

// DomainsService manages sender domains (api-v1.md 4.2).
type DomainsService struct{ c *Client }

// Domain is a sender domain (api-v1.md 2.4). DNSRecordsToPublish is set
// only by Get.
type Domain struct {
	ID                  string             `json:"id"`
	Name                string             `json:"name"`
	Status              string             `json:"status"`
	DKIMSelector        string             `json:"dkimSelector"`
	DKIMPublicKey       *string            `json:"dkimPublicKey"`
	VerifiedAt          *time.Time         `json:"verifiedAt"`
	LastCheckAt         *time.Time         `json:"lastCheckAt"`
	CreatedAt           time.Time          `json:"createdAt"`
	DNSRecordsToPublish []DNSRecordPublish `json:"dnsRecordsToPublish,omitempty"`
}

// DNSRecordPublish is a record to put in the domain's DNS zone.
type DNSRecordPublish struct {
	Type  string `json:"type"`
	Host  string `json:"host"`
	Value string `json:"value"`
	TTL   int    `json:"ttl,omitempty"`
}

// DNSRecord is a record of the add-domain answer (D31): Record is
// ownership, dkim, spf or dmarc.
type DNSRecord struct {
	Record   string `json:"record"`
	Type     string `json:"type"`
	Host     string `json:"host"`
	Value    string `json:"value"`
	TTL      int    `json:"ttl"`
	Status   string `json:"status"`
	Required bool   `json:"required"`
}

// CreatedDomain is the answer to Create: the records to publish.
type CreatedDomain struct {
	ID      string      `json:"id"`
	Name    string      `json:"name"`
	Status  string      `json:"status"`
	Records []DNSRecord `json:"records"`
}

// RecordCheck is the result of checking one DNS record.
type RecordCheck struct {
	// Status is pass, fail or pending.
	Status   string   `json:"status"`
	Expected string   `json:"expected"`
	Found    []string `json:"found"`
}

// DomainVerification is the answer to Verify.
type DomainVerification struct {
	ID          string     `json:"id"`
	Status      string     `json:"status"`
	VerifiedAt  *time.Time `json:"verifiedAt"`
	LastCheckAt time.Time  `json:"lastCheckAt"`
	Checks      struct {
		SPF       RecordCheck `json:"spf"`
		DKIM      RecordCheck `json:"dkim"`
		DMARC     RecordCheck `json:"dmarc"`
		Ownership RecordCheck `json:"ownership"`
		// MX is there while inbound is on (D75); it is never required.
		MX *RecordCheck `json:"mx,omitempty"`
	} `json:"checks"`
}

// DomainHealth is the reputation diagnostic of Health (D33).
type DomainHealth struct {
	DomainID  string    `json:"domainId"`
	CheckedAt time.Time `json:"checkedAt"`
	Score     int       `json:"score"`
	DNS       struct {
		SPF   RecordCheck `json:"spf"`
		DKIM  RecordCheck `json:"dkim"`
		DMARC RecordCheck `json:"dmarc"`
	} `json:"dns"`
	Blacklists []struct {
		List   string `json:"list"`
		Target string `json:"target"`
		Listed bool   `json:"listed"`
		Detail string `json:"detail,omitempty"`
	} `json:"blacklists"`
	Metrics struct {
		WindowDays    int     `json:"windowDays"`
		Sent          int     `json:"sent"`
		BounceRate    float64 `json:"bounceRate"`
		ComplaintRate float64 `json:"complaintRate"`
	} `json:"metrics"`
	Recommendations []struct {
		Code     string `json:"code"`
		Severity string `json:"severity"`
		Message  string `json:"message"`
	} `json:"recommendations"`
}

// Warmup is a domain's warmup progress (api-v1.md 2.5, D34).
type Warmup struct {
	DomainID   string `json:"domainId"`
	CurrentDay int    `json:"currentDay"`
	// DailyQuota is 0 once warmed up (unlimited).
	DailyQuota       int     `json:"dailyQuota"`
	SentToday        int     `json:"sentToday"`
	RemainingToday   int     `json:"remainingToday"`
	QuotaUsedPercent float64 `json:"quotaUsedPercent"`
	// LastSendDate is a UTC date, 2006-01-02.
	LastSendDate *string `json:"lastSendDate"`
}

// DomainInbound is the answer to SetInbound (D75): the switch and the MX
// record to publish for the domain.
type DomainInbound struct {
	DomainID string `json:"domainId"`
	Enabled  bool   `json:"enabled"`
	MX       struct {
		Type string `json:"type"`
		// Host is the domain itself; Value the inbound host
		// (CARTEIRO_INBOUND_HOST).
		Host     string `json:"host"`
		Value    string `json:"value"`
		Priority int    `json:"priority"`
	} `json:"mx"`
}

// DeleteDomainRequest carries the reauthentication an account may require
// (Method "totp" or "password").
type DeleteDomainRequest struct {
	Method     string `json:"method,omitempty"`
	Credential string `json:"credential,omitempty"`
}

// Create is POST /domains.
func (s *DomainsService) Create(ctx context.Context, name string) (*CreatedDomain, error) {
	var out CreatedDomain
	err := s.c.do(ctx, call{method: http.MethodPost, path: "/domains", body: map[string]string{"name": name}}, &out)
	return result(&out, err)
}

// List is GET /domains.
func (s *DomainsService) List(ctx context.Context) iter.Seq2[*Domain, error] {
	return onePage(ctx, s.ListPage)
}

// ListPage is GET /domains: every domain in one answer.
func (s *DomainsService) ListPage(ctx context.Context) ([]Domain, error) {
	var out struct {
		Domains []Domain `json:"domains"`
	}
	err := s.c.do(ctx, call{method: http.MethodGet, path: "/domains", idempotent: true}, &out)
	return out.Domains, err
}

// Get is GET /domains/{id}, with the records to publish.
func (s *DomainsService) Get(ctx context.Context, id string) (*Domain, error) {
	var out Domain
	err := s.c.do(ctx, call{method: http.MethodGet, path: pathf("/domains/%s", id), idempotent: true}, &out)
	return result(&out, err)
}

// Verify is POST /domains/{id}/verify: checks the DNS records now.
func (s *DomainsService) Verify(ctx context.Context, id string) (*DomainVerification, error) {
	var out DomainVerification
	err := s.c.do(ctx, call{method: http.MethodPost, path: pathf("/domains/%s/verify", id), idempotent: true}, &out)
	return result(&out, err)
}

// Health is POST /domains/{id}/health.
func (s *DomainsService) Health(ctx context.Context, id string) (*DomainHealth, error) {
	var out DomainHealth
	err := s.c.do(ctx, call{method: http.MethodPost, path: pathf("/domains/%s/health", id), idempotent: true}, &out)
	return result(&out, err)
}

// SetInbound is POST /domains/{id}/inbound: turns receiving mail for the
// domain on or off (D75). While on, the domain's records include the MX it
// answers, and the received messages are read with InboundEmails.
func (s *DomainsService) SetInbound(ctx context.Context, id string, enabled bool) (*DomainInbound, error) {
	var out DomainInbound
	err := s.c.do(ctx, call{method: http.MethodPost, path: pathf("/domains/%s/inbound", id),
		body: map[string]bool{"enabled": enabled}, idempotent: true}, &out)
	return result(&out, err)
}

// Warmup is GET /domains/{id}/warmup; nil when warmup has not started.
func (s *DomainsService) Warmup(ctx context.Context, id string) (*Warmup, error) {
	var out *Warmup
	err := s.c.do(ctx, call{method: http.MethodGet, path: pathf("/domains/%s/warmup", id), idempotent: true}, &out)
	return out, err
}

// Delete is DELETE /domains/{id} (a soft delete). req may be nil when the
// account has no reauthentication.
func (s *DomainsService) Delete(ctx context.Context, id string, req *DeleteDomainRequest) error {
	var body any
	if req != nil {
		body = req
	}
	return s.c.do(ctx, call{method: http.MethodDelete, path: pathf("/domains/%s", id), body: body, idempotent: true}, nil)
}
