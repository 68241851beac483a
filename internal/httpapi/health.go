package httpapi

import (
	"net/http"
	"time"
)

type checkOnlyJSON struct {
	Status   string   `json:"status"`
	Expected string   `json:"expected"`
	Found    []string `json:"found"`
}

func (s *Server) domainHealth(w http.ResponseWriter, r *http.Request) {
	if err := s.decode(r, &struct{}{}, true); err != nil {
		s.writeError(w, r, err)
		return
	}
	h, err := s.app.DomainHealth(r.Context(), principalOf(r.Context()), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	lang := langOf(r.Context())
	dns := map[string]checkOnlyJSON{}
	for _, kind := range []string{"spf", "dkim", "dmarc"} {
		c := h.DNS[kind]
		found := c.Found
		if found == nil {
			found = []string{}
		}
		dns[kind] = checkOnlyJSON{Status: string(c.Status), Expected: c.Expected, Found: found}
	}
	type listingJSON struct {
		List   string `json:"list"`
		Target string `json:"target"`
		Listed bool   `json:"listed"`
		Detail string `json:"detail,omitempty"`
	}
	lists := make([]listingJSON, 0, len(h.Listings))
	for _, l := range h.Listings {
		lists = append(lists, listingJSON{List: l.List, Target: l.Target, Listed: l.Listed, Detail: l.Detail})
	}
	type recJSON struct {
		Code     string `json:"code"`
		Severity string `json:"severity"`
		Message  string `json:"message"`
	}
	recs := make([]recJSON, 0, len(h.Recommendations))
	for _, rec := range h.Recommendations {
		recs = append(recs, recJSON{Code: rec.Code, Severity: rec.Severity, Message: s.catalog.Text(lang, rec.MessageID, rec.Data)})
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"domainId": h.DomainID, "checkedAt": h.CheckedAt.Format(time.RFC3339Nano), "score": h.Score, "dns": dns, "blacklists": lists,
		"metrics": map[string]any{"windowDays": h.Metrics.WindowDays, "sent": h.Metrics.Sent, "bounceRate": h.Metrics.BounceRate(),
			"complaintRate": h.Metrics.ComplaintRate()},
		"recommendations": recs,
	})
}
