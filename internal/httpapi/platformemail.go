package httpapi

import (
	"net/http"
	"sort"
)

// What an email's page in the dashboard shows besides the Email resource
// (D73): its custom headers, its attachments (without their content) and
// the webhook deliveries of its events. A platform route only: the
// contract's Email resource (2.1) stays as it is.

type headerJSON struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type attachmentInfoJSON struct {
	Filename    string  `json:"filename"`
	ContentType string  `json:"contentType"`
	Disposition string  `json:"disposition"`
	ContentID   *string `json:"contentId"`
	Size        int     `json:"size"` // bytes, decoded
}

type emailDetailsJSON struct {
	Headers           []headerJSON         `json:"headers"`
	Attachments       []attachmentInfoJSON `json:"attachments"`
	WebhookDeliveries []deliveryJSON       `json:"webhookDeliveries"`
}

func (s *Server) emailDetails(w http.ResponseWriter, r *http.Request) {
	d, err := s.app.GetEmailDetails(r.Context(), principalOf(r.Context()), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := emailDetailsJSON{Headers: make([]headerJSON, 0, len(d.Email.Headers)),
		Attachments: make([]attachmentInfoJSON, 0, len(d.Email.Attachments)), WebhookDeliveries: toDeliveriesJSON(d.Deliveries)}
	for name, value := range d.Email.Headers {
		out.Headers = append(out.Headers, headerJSON{Name: name, Value: value})
	}
	sort.Slice(out.Headers, func(i, j int) bool { return out.Headers[i].Name < out.Headers[j].Name })
	for _, a := range d.Email.Attachments {
		out.Attachments = append(out.Attachments, attachmentInfoJSON{Filename: a.Filename, ContentType: a.ContentType,
			Disposition: a.Disposition, ContentID: optional(a.CID), Size: len(a.Content)})
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, out)
}
