package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
)

// MaxBatch is the largest POST /emails/batch (section 8).
const MaxBatch = 100

type sendResultJSON struct {
	ID       string    `json:"id"`
	Status   string    `json:"status"`
	QueuedAt time.Time `json:"queuedAt"`
}

func toSendResult(r *app.SendResult) sendResultJSON {
	return sendResultJSON{ID: r.ID, Status: string(r.Status), QueuedAt: r.QueuedAt}
}

type tagJSON struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type apiKeyRefJSON struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// emailJSON is the Email resource (2.1); every field is always present.
type emailJSON struct {
	ID             string         `json:"id"`
	From           string         `json:"from"`
	To             []string       `json:"to"`
	Cc             []string       `json:"cc"`
	Bcc            []string       `json:"bcc"`
	Subject        *string        `json:"subject"`
	Status         string         `json:"status"`
	Attempts       int            `json:"attempts"`
	LastError      *string        `json:"lastError"`
	MessageID      *string        `json:"messageId"`
	CreatedAt      time.Time      `json:"createdAt"`
	ScheduledAt    *time.Time     `json:"scheduledAt"`
	SentAt         *time.Time     `json:"sentAt"`
	DeliveredAt    *time.Time     `json:"deliveredAt"`
	BouncedAt      *time.Time     `json:"bouncedAt"`
	FailedAt       *time.Time     `json:"failedAt"`
	ComplainedAt   *time.Time     `json:"complainedAt"`
	SuppressedAt   *time.Time     `json:"suppressedAt"`
	OpenedAt       *time.Time     `json:"openedAt"`
	FirstClickedAt *time.Time     `json:"firstClickedAt"`
	OpenCount      int            `json:"openCount"`
	ClickCount     int            `json:"clickCount"`
	Tags           []tagJSON      `json:"tags"`
	HTML           *string        `json:"html"`
	Text           *string        `json:"text"`
	APIKey         *apiKeyRefJSON `json:"apiKey"`
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func addressStrings(as []carteiro.Address) []string {
	if as == nil {
		return nil
	}
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.String()
	}
	return out
}

func toEmailJSON(e *carteiro.Email) emailJSON {
	out := emailJSON{
		ID: e.ID, From: e.From.String(), To: addressStrings(e.To), Cc: addressStrings(e.Cc), Bcc: addressStrings(e.Bcc),
		Subject: optional(e.Subject), Status: string(e.Status), Attempts: e.Attempts, LastError: optional(e.LastError),
		MessageID: optional(e.MessageID), CreatedAt: e.CreatedAt, ScheduledAt: e.ScheduledAt, SentAt: e.SentAt,
		DeliveredAt: e.DeliveredAt, BouncedAt: e.BouncedAt, FailedAt: e.FailedAt, ComplainedAt: e.ComplainedAt,
		SuppressedAt: e.SuppressedAt, OpenedAt: e.OpenedAt, FirstClickedAt: e.FirstClickedAt, OpenCount: e.OpenCount,
		ClickCount: e.ClickCount, HTML: optional(e.HTML), Text: optional(e.Text),
	}
	if out.To == nil {
		out.To = []string{}
	}
	if e.Tags != nil {
		out.Tags = make([]tagJSON, len(e.Tags))
		for i, t := range e.Tags {
			out.Tags[i] = tagJSON{Name: t.Name, Value: t.Value}
		}
	}
	if e.APIKeyID != "" {
		out.APIKey = &apiKeyRefJSON{ID: e.APIKeyID, Name: e.APIKeyName}
	}
	return out
}

func (s *Server) sendEmail(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	req, err := decodeSend(body, r.Header.Get("Idempotency-Key"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.app.SendEmail(r.Context(), principalOf(r.Context()), req)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if res.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	writeJSON(w, http.StatusAccepted, toSendResult(res))
}

type batchItemJSON struct {
	OK    bool            `json:"ok"`
	Data  *sendResultJSON `json:"data,omitempty"`
	Error string          `json:"error,omitempty"`
}

func (s *Server) sendBatch(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	trimmed := bytes.Trim(body, jsonSpace)
	var items []json.RawMessage
	if len(trimmed) == 0 || trimmed[0] != '[' || json.Unmarshal(trimmed, &items) != nil {
		s.writeError(w, r, &carteiro.Error{Code: carteiro.CodeInvalidJSON})
		return
	}
	switch {
	case len(items) == 0:
		s.writeError(w, r, carteiro.Invalid("batch", "empty"))
		return
	case len(items) > MaxBatch:
		s.writeError(w, r, carteiro.Invalid("batch", "too_many"))
		return
	}
	reqs := make([]*app.SendRequest, len(items))
	decodeErrs := make([]error, len(items))
	var valid []*app.SendRequest
	for i, raw := range items {
		// Each item's own key applies; the header is for single sends (D22).
		if reqs[i], decodeErrs[i] = decodeSend(raw, ""); decodeErrs[i] == nil {
			valid = append(valid, reqs[i])
		}
	}
	results, err := s.app.SendBatch(r.Context(), principalOf(r.Context()), valid)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := make([]batchItemJSON, len(items))
	next := 0
	for i := range items {
		itemErr := decodeErrs[i]
		var res *app.SendResult
		if itemErr == nil {
			res, itemErr = results[next].Result, results[next].Err
			next++
		}
		if itemErr != nil {
			_, env := s.envelope(r, itemErr)
			out[i] = batchItemJSON{Error: env.Error.Code + ": " + env.Error.Message}
			continue
		}
		data := toSendResult(res)
		out[i] = batchItemJSON{OK: true, Data: &data}
	}
	writeJSON(w, http.StatusAccepted, out)
}

func (s *Server) listEmails(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	query := app.EmailQuery{Status: q.Get("status"), Recipient: q.Get("recipient"), FromEmail: q.Get("fromEmail"),
		SubjectContains: q.Get("subjectContains"), APIKeyID: q.Get("apiKeyId"), Tag: q.Get("tag")}
	err := queryTimes(q, timeParam{"from", &query.From}, timeParam{"to", &query.To}, timeParam{"after", &query.After})
	if err == nil {
		query.Limit, err = queryLimit(q)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	emails, next, err := s.app.ListEmails(r.Context(), principalOf(r.Context()), query)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := make([]emailJSON, 0, len(emails))
	for _, e := range emails {
		out = append(out, toEmailJSON(e))
	}
	writeJSON(w, http.StatusOK, map[string]any{"emails": out, "nextCursor": cursorString(next)})
}

func (s *Server) emailTags(w http.ResponseWriter, r *http.Request) {
	values, names, err := s.app.EmailTags(r.Context(), principalOf(r.Context()))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	type tagValues struct {
		Name   string   `json:"name"`
		Values []string `json:"values"`
	}
	out := make([]tagValues, 0, len(names))
	for _, n := range names {
		out = append(out, tagValues{Name: n, Values: values[n]})
	}
	writeJSON(w, http.StatusOK, map[string]any{"tags": out})
}

func (s *Server) getEmail(w http.ResponseWriter, r *http.Request) {
	e, err := s.app.GetEmail(r.Context(), principalOf(r.Context()), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toEmailJSON(e))
}

func (s *Server) emailEvents(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	evs, err := s.app.EmailEvents(r.Context(), principalOf(r.Context()), id)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	type eventJSON struct {
		Type      string         `json:"type"`
		Timestamp time.Time      `json:"timestamp"`
		Metadata  map[string]any `json:"metadata,omitempty"`
	}
	out := make([]eventJSON, 0, len(evs))
	for _, ev := range evs {
		out = append(out, eventJSON{Type: string(ev.Type), Timestamp: ev.Timestamp, Metadata: ev.Metadata})
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "events": out})
}

func (s *Server) cancelEmail(w http.ResponseWriter, r *http.Request) {
	if err := s.decode(r, &struct{}{}, true); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.app.CancelEmail(r.Context(), principalOf(r.Context()), r.PathValue("id")); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) resendEmail(w http.ResponseWriter, r *http.Request) {
	if err := s.decode(r, &struct{}{}, true); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.app.ResendEmail(r.Context(), principalOf(r.Context()), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, toSendResult(res))
}
