package httpapi

import (
	"net/http"

	"github.com/carteiro/carteiro"
)

// Wire shape of POST /domains/:id/inbound (D75).
type domainInboundJSON struct {
	DomainID string `json:"domainId"`
	Enabled  bool   `json:"enabled"`
	MX       mxJSON `json:"mx"`
}

type mxJSON struct {
	Type     string `json:"type"`
	Host     string `json:"host"`
	Value    string `json:"value"`
	Priority int    `json:"priority"`
}

func (s *Server) setDomainInbound(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Enabled *bool `json:"enabled"`
	}
	if err := s.decode(r, &req, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.Enabled == nil {
		s.writeError(w, r, carteiro.Invalid("enabled", "required"))
		return
	}
	sw, err := s.app.SetDomainInbound(r.Context(), principalOf(r.Context()), r.PathValue("id"), *req.Enabled)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, domainInboundJSON{DomainID: sw.DomainID, Enabled: sw.Enabled,
		MX: mxJSON{Type: sw.MX.Type, Host: sw.MX.Host, Value: sw.MX.Value, Priority: sw.MX.Priority}})
}
