package httpapi

import (
	"net/http"

	"github.com/carteiro/carteiro"
)

// erasePerson is POST /privacy/erase (D78).
func (s *Server) erasePerson(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Email *string `json:"email"`
	}
	if err := s.decode(r, &req, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.Email == nil {
		s.writeError(w, r, carteiro.Invalid("email", "required"))
		return
	}
	out, err := s.app.ErasePerson(r.Context(), principalOf(r.Context()), *req.Email)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]int64{
		"contactsDeleted": out.ContactsDeleted, "emailsRedacted": out.EmailsRedacted, "inboundDeleted": out.InboundDeleted,
	})
}
