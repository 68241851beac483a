package httpapi

import (
	"net/http"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
)

type suppressionJSON struct {
	ID        string     `json:"id"`
	Email     string     `json:"email"`
	Reason    string     `json:"reason"`
	Source    string     `json:"source"`
	Category  string     `json:"category"`
	Status    string     `json:"status"`
	ExpiresAt *time.Time `json:"expiresAt"`
	CreatedAt time.Time  `json:"createdAt"`
}

func (s *Server) toSuppressionJSON(sp *carteiro.Suppression) suppressionJSON {
	return suppressionJSON{ID: sp.ID, Email: sp.Email, Reason: sp.Reason, Source: sp.Source, Category: sp.Category,
		Status: sp.EffectiveStatus(s.Clock.Now()), ExpiresAt: sp.ExpiresAt, CreatedAt: sp.CreatedAt}
}

func (s *Server) createSuppression(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Email     *string `json:"email"`
		Reason    *string `json:"reason"`
		ExpiresAt *string `json:"expiresAt"`
	}
	if err := s.decode(r, &req, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.Email == nil {
		s.writeError(w, r, carteiro.Invalid("email", "required"))
		return
	}
	in := app.SuppressionInput{Email: *req.Email}
	if req.Reason != nil {
		in.Reason = *req.Reason
	}
	if req.ExpiresAt != nil {
		t, ok := parseTime(*req.ExpiresAt)
		if !ok {
			s.writeError(w, r, carteiro.Invalid("expiresAt", "invalid_date"))
			return
		}
		in.ExpiresAt = &t
	}
	sp, err := s.app.CreateSuppression(r.Context(), principalOf(r.Context()), in)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, s.toSuppressionJSON(sp))
}

func (s *Server) listSuppressions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	query := app.SuppressionQuery{Status: q.Get("status"), Reason: q.Get("reason"), Email: q.Get("email")}
	err := queryTimes(q, timeParam{"after", &query.After})
	if err == nil {
		query.Limit, err = queryLimit(q)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ss, next, err := s.app.ListSuppressions(r.Context(), principalOf(r.Context()), query)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := make([]suppressionJSON, 0, len(ss))
	for _, sp := range ss {
		out = append(out, s.toSuppressionJSON(sp))
	}
	writeJSON(w, http.StatusOK, map[string]any{"suppressions": out, "nextCursor": cursorString(next)})
}

// cursorString renders a D27 cursor: RFC 3339 with microseconds, or null.
func cursorString(t *time.Time) *string {
	if t == nil {
		return nil
	}
	c := t.UTC().Format("2006-01-02T15:04:05.000000Z07:00")
	return &c
}

func (s *Server) getSuppression(w http.ResponseWriter, r *http.Request) {
	sp, err := s.app.GetSuppression(r.Context(), principalOf(r.Context()), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, s.toSuppressionJSON(sp))
}

func (s *Server) deleteSuppression(w http.ResponseWriter, r *http.Request) {
	if err := s.app.DeleteSuppression(r.Context(), principalOf(r.Context()), r.PathValue("id")); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) reactivateSuppression(w http.ResponseWriter, r *http.Request) {
	if err := s.decode(r, &struct{}{}, true); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.app.ReactivateSuppression(r.Context(), principalOf(r.Context()), r.PathValue("id")); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
