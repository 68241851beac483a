package httpapi

import (
	"net/http"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
)

type broadcastJSON struct {
	ID               string     `json:"id"`
	AudienceID       string     `json:"audienceId"`
	AudienceName     *string    `json:"audienceName"`
	TemplateID       *string    `json:"templateId"`
	Name             *string    `json:"name"`
	Subject          string     `json:"subject"`
	FromEmail        string     `json:"fromEmail"`
	ReplyTo          *string    `json:"replyTo"`
	Status           string     `json:"status"`
	ScheduledAt      *time.Time `json:"scheduledAt"`
	SentAt           *time.Time `json:"sentAt"`
	CancelledAt      *time.Time `json:"cancelledAt"`
	RecipientsTotal  int64      `json:"recipientsTotal"`
	RecipientsQueued int64      `json:"recipientsQueued"`
	RecipientsFailed int64      `json:"recipientsFailed"`
	CreatedAt        time.Time  `json:"createdAt"`
	UpdatedAt        time.Time  `json:"updatedAt"`
}

func toBroadcastJSON(b *carteiro.Broadcast) broadcastJSON {
	out := broadcastJSON{ID: b.ID, AudienceID: b.AudienceID, AudienceName: b.AudienceName, TemplateID: b.TemplateID, Name: b.Name,
		Subject: b.Subject, FromEmail: b.From.String(), Status: string(b.Status), ScheduledAt: b.ScheduledAt, SentAt: b.SentAt,
		CancelledAt: b.CancelledAt, RecipientsTotal: b.RecipientsTotal, RecipientsQueued: b.RecipientsQueued,
		RecipientsFailed: b.RecipientsFailed, CreatedAt: b.CreatedAt, UpdatedAt: b.UpdatedAt}
	if b.ReplyTo != nil {
		rt := b.ReplyTo.String()
		out.ReplyTo = &rt
	}
	return out
}

func (s *Server) createBroadcast(w http.ResponseWriter, r *http.Request) {
	var b struct {
		AudienceID  *string              `json:"audienceId"`
		FromEmail   *string              `json:"fromEmail"`
		Subject     *string              `json:"subject"`
		HTML        *string              `json:"html"`
		Text        *string              `json:"text"`
		TemplateID  *string              `json:"templateId"`
		Variables   *carteiro.JSONObject `json:"variables"`
		ReplyTo     *string              `json:"replyTo"`
		Name        *string              `json:"name"`
		ScheduledAt *string              `json:"scheduledAt"`
	}
	if err := s.decode(r, &b, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	in := app.BroadcastInput{AudienceID: b.AudienceID, Subject: b.Subject, HTML: b.HTML, Text: b.Text, TemplateID: b.TemplateID,
		Variables: b.Variables, Name: b.Name}
	if b.FromEmail != nil {
		in.From = &app.AddressInput{Text: *b.FromEmail}
	}
	if b.ReplyTo != nil {
		in.ReplyTo = &app.AddressInput{Text: *b.ReplyTo}
	}
	if b.ScheduledAt != nil {
		t, ok := parseTime(*b.ScheduledAt)
		if !ok {
			s.writeError(w, r, carteiro.Invalid("scheduledAt", "invalid_date"))
			return
		}
		in.ScheduledAt = &t
	}
	out, err := s.app.CreateBroadcast(r.Context(), principalOf(r.Context()), in)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, toBroadcastJSON(out))
}

func (s *Server) listBroadcasts(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	query := app.BroadcastQuery{Status: q.Get("status")}
	err := queryTimes(q, timeParam{"from", &query.From}, timeParam{"to", &query.To}, timeParam{"after", &query.After})
	if err == nil {
		query.Limit, err = queryLimit(q)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	list, next, err := s.app.ListBroadcasts(r.Context(), principalOf(r.Context()), query)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"broadcasts": mapAll(list, toBroadcastJSON), "nextCursor": cursorString(next)})
}

func (s *Server) getBroadcast(w http.ResponseWriter, r *http.Request) {
	b, err := s.app.GetBroadcast(r.Context(), principalOf(r.Context()), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toBroadcastJSON(b))
}

func (s *Server) sendBroadcast(w http.ResponseWriter, r *http.Request) {
	b, err := s.app.SendBroadcast(r.Context(), principalOf(r.Context()), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"id": b.ID, "status": string(b.Status)})
}

func (s *Server) cancelBroadcast(w http.ResponseWriter, r *http.Request) {
	b, err := s.app.CancelBroadcast(r.Context(), principalOf(r.Context()), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": b.ID, "status": string(b.Status), "cancelledAt": b.CancelledAt})
}
