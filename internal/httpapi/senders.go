package httpapi

import (
	"net/http"
	"time"

	"github.com/carteiro/carteiro"
)

type senderJSON struct {
	ID          string     `json:"id"`
	Email       string     `json:"email"`
	DisplayName *string    `json:"displayName"`
	VerifiedAt  *time.Time `json:"verifiedAt"`
	Active      bool       `json:"active"`
	CreatedAt   time.Time  `json:"createdAt"`
}

func toSenderJSON(s *carteiro.Sender) senderJSON {
	return senderJSON{ID: s.ID, Email: s.Email, DisplayName: optional(s.DisplayName), VerifiedAt: s.VerifiedAt, Active: s.Active, CreatedAt: s.CreatedAt}
}

func (s *Server) createSender(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Email       *string `json:"email"`
		DisplayName *string `json:"displayName"`
	}
	if err := s.decode(r, &req, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.Email == nil {
		s.writeError(w, r, carteiro.Invalid("email", "required"))
		return
	}
	ns, err := s.app.CreateSender(r.Context(), principalOf(r.Context()), *req.Email, req.DisplayName)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, struct {
		senderJSON
		VerificationToken *string `json:"verificationToken"` // null when it went only to the mailbox (D59)
	}{toSenderJSON(ns.Sender), optional(ns.Token)})
}

func (s *Server) listSenders(w http.ResponseWriter, r *http.Request) {
	ss, err := s.app.ListSenders(r.Context(), principalOf(r.Context()))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := make([]senderJSON, 0, len(ss))
	for _, sd := range ss {
		out = append(out, toSenderJSON(sd))
	}
	writeJSON(w, http.StatusOK, map[string]any{"senders": out})
}

func (s *Server) verifySender(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Token *string `json:"token"`
	}
	if err := s.decode(r, &req, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.Token == nil || *req.Token == "" {
		s.writeError(w, r, carteiro.Invalid("token", "required"))
		return
	}
	sd, err := s.app.VerifySender(r.Context(), principalOf(r.Context()), *req.Token)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"id": sd.ID, "email": sd.Email})
}

func (s *Server) deleteSender(w http.ResponseWriter, r *http.Request) {
	if err := s.app.DeleteSender(r.Context(), principalOf(r.Context()), r.PathValue("id")); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) domainWarmup(w http.ResponseWriter, r *http.Request) {
	st, err := s.app.Warmup(r.Context(), principalOf(r.Context()), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if st == nil {
		writeJSON(w, http.StatusOK, nil) // warmup not started (4.2)
		return
	}
	var last *string
	if st.LastSendDate != "" {
		last = &st.LastSendDate
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"domainId": st.DomainID, "currentDay": st.CurrentDay, "dailyQuota": st.DailyQuota, "sentToday": st.SentToday,
		"remainingToday": st.RemainingToday, "quotaUsedPercent": st.QuotaUsedPercent, "lastSendDate": last,
	})
}
