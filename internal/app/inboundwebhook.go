package app

import (
	"context"
	"encoding/json"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/mimeparse"
	"github.com/carteiro/carteiro/internal/store"
)

// maxWebhookBody is where text and html are cut in email.received (D75).
const maxWebhookBody = 256 << 10

// raiseReceived creates, in tx, one email.received delivery per webhook
// of the organization subscribed to it, as recordEvents does for the
// events of sent email (D47, D50), and returns those that get a job now:
// the active webhooks' (a paused one's wait for it, D50). The caller hands
// them to store.RecordReceived, which inserts the jobs of every message of
// the shared commit with one statement.
func (a *App) raiseReceived(ctx context.Context, tx *store.Tx, e *carteiro.InboundEmail) ([]string, error) {
	hooks, err := tx.ListWebhooks(ctx, e.OrgID, "")
	if err != nil {
		return nil, err
	}
	// The event's id is the message's: a message raises one email.received,
	// and DELETE /inbound-emails/:id finds the deliveries that carry it by
	// that id, through the deliveries' index on it (D75).
	eventID := e.ID
	var payload []byte
	var deliveries []*carteiro.WebhookDelivery
	var jobs []string
	for _, h := range hooks {
		if h.Status == carteiro.WebhookDisabled || !slices.Contains(h.Events, EventReceived) {
			continue
		}
		if payload == nil {
			if payload, err = receivedPayload(eventID, e); err != nil {
				return nil, err
			}
		}
		d := a.newDelivery(h, eventID, EventReceived, payload)
		deliveries = append(deliveries, d)
		if h.Status == carteiro.WebhookActive {
			jobs = append(jobs, d.ID)
		}
	}
	if len(deliveries) == 0 {
		return nil, nil
	}
	if err := tx.InsertDeliveries(ctx, deliveries); err != nil {
		return nil, err
	}
	return jobs, nil
}

// webhookJobs inserts webhook delivery jobs through the queue
// (store.WebhookJobs).
type webhookJobs struct{ queue Enqueuer }

// InsertWebhookJobs inserts one job per delivery, with one statement.
func (w webhookJobs) InsertWebhookJobs(ctx context.Context, tx *store.Tx, deliveryIDs []string) error {
	jobs := make([]Job, len(deliveryIDs))
	for i, id := range deliveryIDs {
		jobs[i] = WebhookDeliveryJob{DeliveryID: id}
	}
	return w.queue.EnqueueManyTx(ctx, tx, jobs, JobOpts{Queue: WebhookQueue})
}

// receivedAttachment is an attachment as email.received and the API show it.
type receivedAttachment struct {
	ID          string `json:"id"`
	Filename    string `json:"filename"`
	ContentType string `json:"contentType"`
	Size        int64  `json:"size"`
}

// ReceivedAttachments lists a message's attachments in D75's shape.
func ReceivedAttachments(m *mimeparse.Message) []receivedAttachment {
	out := make([]receivedAttachment, 0, len(m.Attachments))
	for _, att := range m.Attachments {
		out = append(out, receivedAttachment{ID: att.ID, Filename: att.Filename, ContentType: att.ContentType, Size: att.Size})
	}
	return out
}

// receivedPayload is D47's body for email.received, with D75's data.
func receivedPayload(eventID string, e *carteiro.InboundEmail) ([]byte, error) {
	m := e.Message
	text, textCut := cutUTF8(m.Text, maxWebhookBody)
	html, htmlCut := cutUTF8(m.HTML, maxWebhookBody)
	data := map[string]any{
		"inboundEmailId":   e.ID,
		"from":             firstAddress(m.From),
		"to":               addressTexts(m.To),
		"cc":               addressTexts(m.Cc),
		"subject":          m.Subject,
		"text":             text,
		"html":             html,
		"attachments":      ReceivedAttachments(m),
		"spf":              e.SPF,
		"dkim":             e.DKIM,
		"dmarc":            e.DMARC,
		"inReplyToEmailId": nullable(e.InReplyToEmailID),
	}
	if textCut || htmlCut {
		data["truncated"] = true
	}
	return marshalEvent(eventID, EventReceived, e.ReceivedAt.UTC().Format(time.RFC3339Nano), data)
}

// cutUTF8 cuts s to at most max bytes without splitting a character.
func cutUTF8(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], true
}

func firstAddress(list []mimeparse.Address) string {
	if len(list) == 0 {
		return ""
	}
	return list[0].String()
}

func addressTexts(list []mimeparse.Address) []string {
	out := make([]string, len(list))
	for i, a := range list {
		out[i] = a.String()
	}
	return out
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// testReceived queues a made-up email.received for POST /webhooks/:id/test
// (D52), with data.test true.
func (a *App) testReceived(ctx context.Context, w *carteiro.Webhook, now time.Time) (string, error) {
	e := &carteiro.InboundEmail{ID: uuid.Must(uuid.NewV7()).String(), SPF: "none", DKIM: "none", DMARC: "none", ReceivedAt: now,
		Message: &mimeparse.Message{From: []mimeparse.Address{{Address: "sender@example.com"}},
			To: []mimeparse.Address{{Address: "support@example.com"}}, Subject: "Carteiro webhook test", Text: "Hello"}}
	payload, err := receivedPayload(uuid.Must(uuid.NewV7()).String(), e)
	if err != nil {
		return "", &carteiro.Error{Code: carteiro.CodeInternal, Err: err}
	}
	var body map[string]any
	if err := json.Unmarshal(payload, &body); err != nil {
		return "", &carteiro.Error{Code: carteiro.CodeInternal, Err: err}
	}
	body["data"].(map[string]any)["test"] = true
	if payload, err = json.Marshal(body); err != nil {
		return "", &carteiro.Error{Code: carteiro.CodeInternal, Err: err}
	}
	return a.queueTestDelivery(ctx, w, EventReceived, payload)
}
