package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
)

type webhookJSON struct {
	ID            string    `json:"id"`
	URL           string    `json:"url"`
	Events        []string  `json:"events"`
	Status        string    `json:"status"`
	Description   *string   `json:"description"`
	CreatedAt     time.Time `json:"createdAt"`
	Secret        *string   `json:"secret"` // always null (2.11)
	SecretPreview *string   `json:"secretPreview"`
}

type webhookListItemJSON struct {
	ID          string    `json:"id"`
	URL         string    `json:"url"`
	Events      []string  `json:"events"`
	Status      string    `json:"status"`
	Description *string   `json:"description"`
	HasSecret   bool      `json:"hasSecret"`
	CreatedAt   time.Time `json:"createdAt"`
}

func toWebhookJSON(w *carteiro.Webhook) webhookJSON {
	return webhookJSON{ID: w.ID, URL: w.URL, Events: w.Events, Status: string(w.Status), Description: optional(w.Description),
		CreatedAt: w.CreatedAt, SecretPreview: optional(w.SecretPreview)}
}

// webhookBody decodes POST and PUT /webhooks, telling null from absent.
func webhookBody(raw []byte) (app.WebhookInput, error) {
	var b struct {
		URL         *string         `json:"url"`
		Events      *[]string       `json:"events"`
		Secret      *string         `json:"secret"`
		Description json.RawMessage `json:"description"`
	}
	if err := DecodeJSON(raw, &b, false); err != nil {
		return app.WebhookInput{}, err
	}
	in := app.WebhookInput{URL: b.URL, Secret: b.Secret}
	if b.Events != nil {
		in.Events, in.EventsSet = *b.Events, true
	}
	// A RawMessage receives the literal null, so null (clear) and an absent
	// field (keep) differ here.
	if len(b.Description) > 0 {
		in.DescriptionSet = true
		if !bytes.Equal(bytes.TrimSpace(b.Description), []byte("null")) {
			var d string
			if err := json.Unmarshal(b.Description, &d); err != nil {
				return app.WebhookInput{}, carteiro.Invalid("description", "invalid_type")
			}
			in.Description = &d
		}
	}
	return in, nil
}

func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	in, err := webhookBody(body)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if !in.EventsSet {
		s.writeError(w, r, carteiro.Invalid("events", "required"))
		return
	}
	wh, err := s.app.CreateWebhook(r.Context(), principalOf(r.Context()), in)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, toWebhookJSON(wh))
}

func (s *Server) listWebhooks(w http.ResponseWriter, r *http.Request) {
	ws, err := s.app.ListWebhooks(r.Context(), principalOf(r.Context()), r.URL.Query().Get("status"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := make([]webhookListItemJSON, 0, len(ws))
	for _, wh := range ws {
		out = append(out, webhookListItemJSON{ID: wh.ID, URL: wh.URL, Events: wh.Events, Status: string(wh.Status),
			Description: optional(wh.Description), HasSecret: wh.Secret != "", CreatedAt: wh.CreatedAt})
	}
	writeJSON(w, http.StatusOK, map[string]any{"webhooks": out})
}

func (s *Server) getWebhook(w http.ResponseWriter, r *http.Request) {
	wh, err := s.app.GetWebhook(r.Context(), principalOf(r.Context()), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toWebhookJSON(wh))
}

func (s *Server) updateWebhook(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	in, err := webhookBody(body)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if in.Secret != nil {
		s.writeError(w, r, carteiro.Invalid("secret", "unknown_field")) // rotate-secret changes it
		return
	}
	wh, err := s.app.UpdateWebhook(r.Context(), principalOf(r.Context()), r.PathValue("id"), in)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toWebhookJSON(wh))
}

func (s *Server) patchWebhook(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Status *string `json:"status"`
	}
	if err := s.decode(r, &req, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.Status == nil {
		s.writeError(w, r, carteiro.Invalid("status", "required"))
		return
	}
	wh, err := s.app.SetWebhookStatus(r.Context(), principalOf(r.Context()), r.PathValue("id"), *req.Status)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"id": wh.ID, "status": string(wh.Status)})
}

func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request) {
	if err := s.app.DeleteWebhook(r.Context(), principalOf(r.Context()), r.PathValue("id")); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) webhookDeliveries(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	query := app.DeliveryQuery{EventType: q.Get("eventType"), Status: q.Get("status")}
	err := queryTimes(q, timeParam{"from", &query.From}, timeParam{"to", &query.To})
	if err == nil {
		query.Limit, err = queryLimit(q)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ds, err := s.app.ListDeliveries(r.Context(), principalOf(r.Context()), r.PathValue("id"), query)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"deliveries": toDeliveriesJSON(ds)})
}

func (s *Server) testWebhook(w http.ResponseWriter, r *http.Request) {
	var req struct {
		EventType *string `json:"eventType"`
	}
	if err := s.decode(r, &req, true); err != nil {
		s.writeError(w, r, err)
		return
	}
	eventType := ""
	if req.EventType != nil {
		eventType = *req.EventType
	}
	id, err := s.app.TestWebhook(r.Context(), principalOf(r.Context()), r.PathValue("id"), eventType)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"deliveryId": id})
}

func (s *Server) rotateWebhookSecret(w http.ResponseWriter, r *http.Request) {
	if err := s.decode(r, &struct{}{}, true); err != nil {
		s.writeError(w, r, err)
		return
	}
	id := r.PathValue("id")
	secret, err := s.app.RotateWebhookSecret(r.Context(), principalOf(r.Context()), id)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"webhookId": id, "secret": secret})
}

// deliveryJSON is one webhook delivery (3.6).
type deliveryJSON struct {
	ID             string    `json:"id"`
	WebhookID      string    `json:"webhookId"`
	EmailEventID   *string   `json:"emailEventId"`
	EventType      string    `json:"eventType"`
	ResponseStatus *int      `json:"responseStatus"`
	ResponseBody   *string   `json:"responseBody"`
	Attempts       int       `json:"attempts"`
	LastError      *string   `json:"lastError"`
	Status         string    `json:"status"`
	NextRunAt      time.Time `json:"nextRunAt"`
	CreatedAt      time.Time `json:"createdAt"`
}

func toDeliveriesJSON(ds []*carteiro.WebhookDelivery) []deliveryJSON {
	out := make([]deliveryJSON, 0, len(ds))
	for _, d := range ds {
		var status *int
		if d.ResponseStatus != 0 {
			status = &d.ResponseStatus
		}
		out = append(out, deliveryJSON{ID: d.ID, WebhookID: d.WebhookID, EmailEventID: optional(d.EmailEventID), EventType: d.EventType,
			ResponseStatus: status, ResponseBody: optional(d.ResponseBody), Attempts: d.Attempts, LastError: optional(d.LastError),
			Status: string(d.Status), NextRunAt: d.NextRunAt, CreatedAt: d.CreatedAt})
	}
	return out
}
