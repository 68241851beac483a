package httpapi

import (
	"net/http"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
)

// Wire shapes of the domain routes (2.4, 4.2, D31, D32).

type domainJSON struct {
	ID            string     `json:"id"`
	Name          string     `json:"name"`
	Status        string     `json:"status"`
	DKIMSelector  string     `json:"dkimSelector"`
	DKIMPublicKey *string    `json:"dkimPublicKey"`
	VerifiedAt    *time.Time `json:"verifiedAt"`
	LastCheckAt   *time.Time `json:"lastCheckAt"`
	CreatedAt     time.Time  `json:"createdAt"`
}

type domainDetailJSON struct {
	domainJSON
	DNSRecordsToPublish []publishRecordJSON `json:"dnsRecordsToPublish"`
}

type publishRecordJSON struct {
	Type     string `json:"type"`
	Host     string `json:"host"`
	Value    string `json:"value"`
	TTL      int    `json:"ttl"`
	Priority int    `json:"priority,omitempty"` // MX only (D75)
}

type domainRecordJSON struct {
	Record   string `json:"record"`
	Type     string `json:"type"`
	Host     string `json:"host"`
	Value    string `json:"value"`
	TTL      int    `json:"ttl"`
	Status   string `json:"status"`
	Required bool   `json:"required"`
}

type createdDomainJSON struct {
	ID      string             `json:"id"`
	Name    string             `json:"name"`
	Status  string             `json:"status"`
	Records []domainRecordJSON `json:"records"`
}

type checkJSON struct {
	Status   string   `json:"status"`
	Expected string   `json:"expected"`
	Found    []string `json:"found"`
}

type verificationJSON struct {
	ID          string               `json:"id"`
	Status      string               `json:"status"`
	VerifiedAt  *time.Time           `json:"verifiedAt"`
	LastCheckAt *time.Time           `json:"lastCheckAt"`
	Checks      map[string]checkJSON `json:"checks"`
}

func toDomainJSON(d *carteiro.Domain) domainJSON {
	var pub *string
	if d.DKIMPublicKey != "" {
		pub = &d.DKIMPublicKey
	}
	return domainJSON{
		ID: d.ID, Name: d.Name, Status: string(d.Status), DKIMSelector: d.DKIMSelector, DKIMPublicKey: pub,
		VerifiedAt: d.VerifiedAt, LastCheckAt: d.LastCheckAt, CreatedAt: d.CreatedAt,
	}
}

// recordStatus is a record's status in the create response: every record
// starts pending, and takes the domain's status once it is verified.
func recordStatus(d *carteiro.Domain) string {
	if d.Status == carteiro.DomainVerified {
		return "verified"
	}
	return "pending"
}

func (s *Server) createDomain(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name *string `json:"name"`
	}
	if err := s.decode(r, &req, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.Name == nil {
		s.writeError(w, r, carteiro.Invalid("name", "required"))
		return
	}
	nd, err := s.app.CreateDomain(r.Context(), principalOf(r.Context()), *req.Name)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := createdDomainJSON{ID: nd.Domain.ID, Name: nd.Domain.Name, Status: string(nd.Domain.Status)}
	for _, rec := range nd.Records {
		out.Records = append(out.Records, domainRecordJSON{
			Record: rec.Record, Type: rec.Type, Host: rec.Host, Value: rec.Value, TTL: rec.TTL,
			Status: recordStatus(nd.Domain), Required: rec.Required,
		})
	}
	writeJSON(w, http.StatusCreated, out)
}

func (s *Server) listDomains(w http.ResponseWriter, r *http.Request) {
	ds, err := s.app.ListDomains(r.Context(), principalOf(r.Context()))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := make([]domainJSON, 0, len(ds))
	for _, d := range ds {
		out = append(out, toDomainJSON(d))
	}
	writeJSON(w, http.StatusOK, map[string]any{"domains": out})
}

func (s *Server) getDomain(w http.ResponseWriter, r *http.Request) {
	nd, err := s.app.GetDomain(r.Context(), principalOf(r.Context()), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := domainDetailJSON{domainJSON: toDomainJSON(nd.Domain)}
	for _, rec := range nd.Records {
		out.DNSRecordsToPublish = append(out.DNSRecordsToPublish, publishRecordJSON{Type: rec.Type, Host: rec.Host, Value: rec.Value, TTL: rec.TTL,
			Priority: rec.Priority})
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) verifyDomain(w http.ResponseWriter, r *http.Request) {
	if err := s.decode(r, &struct{}{}, true); err != nil {
		s.writeError(w, r, err)
		return
	}
	v, err := s.app.VerifyDomain(r.Context(), principalOf(r.Context()), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := verificationJSON{ID: v.Domain.ID, Status: string(v.Domain.Status), VerifiedAt: v.Domain.VerifiedAt,
		LastCheckAt: v.Domain.LastCheckAt, Checks: map[string]checkJSON{}}
	for kind, c := range v.Checks {
		found := c.Found
		if found == nil {
			found = []string{}
		}
		out.Checks[kind] = checkJSON{Status: string(c.Status), Expected: c.Expected, Found: found}
	}
	writeJSON(w, http.StatusAccepted, out)
}

func (s *Server) deleteDomain(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Method     *string `json:"method"`
		Credential *string `json:"credential"`
	}
	if err := s.decode(r, &req, true); err != nil {
		s.writeError(w, r, err)
		return
	}
	var re app.Reauth
	if req.Method != nil {
		if *req.Method != "totp" && *req.Method != "password" {
			s.writeError(w, r, carteiro.Invalid("method", "invalid_value"))
			return
		}
		re.Method = *req.Method
	}
	if req.Credential != nil {
		re.Credential = *req.Credential
	}
	if err := s.app.DeleteDomain(r.Context(), principalOf(r.Context()), r.PathValue("id"), re); err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

// decode reads and strictly decodes the request body.
func (s *Server) decode(r *http.Request, dst any, optional bool) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	return DecodeJSON(body, dst, optional)
}
