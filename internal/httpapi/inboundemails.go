package httpapi

import (
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/mimeparse"
)

// Wire shapes of the inbound email routes (D75).

type inboundEmailJSON struct {
	ID                    string    `json:"id"`
	DomainID              string    `json:"domainId"`
	From                  string    `json:"from"`
	To                    []string  `json:"to"`
	Cc                    []string  `json:"cc"`
	ReplyTo               []string  `json:"replyTo"`
	Subject               string    `json:"subject"`
	MessageID             *string   `json:"messageId"`
	MailFrom              string    `json:"mailFrom"`
	RcptTo                []string  `json:"rcptTo"`
	SPF                   string    `json:"spf"`
	DKIM                  string    `json:"dkim"`
	DMARC                 string    `json:"dmarc"`
	AuthenticationResults string    `json:"authenticationResults"`
	InReplyToEmailID      *string   `json:"inReplyToEmailId"`
	Attachments           any       `json:"attachments"`
	Size                  int64     `json:"size"`
	ReceivedAt            time.Time `json:"receivedAt"`
}

// inboundDetailJSON adds the bodies, which lists leave out.
type inboundDetailJSON struct {
	inboundEmailJSON
	Text string `json:"text"`
	HTML string `json:"html"`
}

func addressStringsOf(list []mimeparse.Address) []string {
	out := make([]string, len(list))
	for i, a := range list {
		out[i] = a.String()
	}
	return out
}

func toInboundJSON(e *carteiro.InboundEmail) inboundEmailJSON {
	m := e.Message
	from := ""
	if len(m.From) > 0 {
		from = m.From[0].String()
	}
	return inboundEmailJSON{
		ID: e.ID, DomainID: e.DomainID, From: from, To: addressStringsOf(m.To), Cc: addressStringsOf(m.Cc),
		ReplyTo: addressStringsOf(m.ReplyTo), Subject: m.Subject, MessageID: optional(m.MessageID),
		MailFrom: e.MailFrom, RcptTo: e.RcptTo, SPF: e.SPF, DKIM: e.DKIM, DMARC: e.DMARC,
		AuthenticationResults: e.AuthResults, InReplyToEmailID: optional(e.InReplyToEmailID),
		Attachments: app.ReceivedAttachments(m), Size: e.Size, ReceivedAt: e.ReceivedAt.UTC(),
	}
}

func (s *Server) listInboundEmails(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	query := app.InboundQuery{FromAddress: q.Get("fromAddress"), ToAddress: q.Get("toAddress")}
	err := queryTimes(q, timeParam{"from", &query.From}, timeParam{"to", &query.To}, timeParam{"after", &query.After})
	if err == nil {
		query.Limit, err = queryLimit(q)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	list, next, err := s.app.ListInboundEmails(r.Context(), principalOf(r.Context()), query)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"inboundEmails": mapAll(list, toInboundJSON), "nextCursor": cursorString(next)})
}

func (s *Server) getInboundEmail(w http.ResponseWriter, r *http.Request) {
	e, err := s.app.GetInboundEmail(r.Context(), principalOf(r.Context()), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, inboundDetailJSON{inboundEmailJSON: toInboundJSON(e), Text: e.Message.Text, HTML: e.Message.HTML})
}

func (s *Server) getInboundRaw(w http.ResponseWriter, r *http.Request) {
	raw, err := s.app.InboundRaw(r.Context(), principalOf(r.Context()), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "message/rfc822")
	w.Header().Set("Content-Length", strconv.Itoa(len(raw)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(raw)
}

func (s *Server) getInboundAttachment(w http.ResponseWriter, r *http.Request) {
	att, content, err := s.app.InboundAttachment(r.Context(), principalOf(r.Context()), r.PathValue("id"), r.PathValue("attachmentId"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", att.ContentType)
	h.Set("Content-Length", strconv.Itoa(len(content)))
	// Always a download: received content is the sender's, never a page
	// of this origin.
	disposition := mime.FormatMediaType("attachment", map[string]string{"filename": att.Filename})
	if att.Filename == "" || disposition == "" {
		disposition = "attachment"
	}
	h.Set("Content-Disposition", disposition)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(content)
}

func (s *Server) deleteInboundEmail(w http.ResponseWriter, r *http.Request) {
	if err := s.app.DeleteInboundEmail(r.Context(), principalOf(r.Context()), r.PathValue("id")); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
