package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/carteiro/carteiro"
)

const webhookColumns = `id, org_id, url, events, status, description, secret, secret_preview, failing_since, failed_attempts, created_at, updated_at`

func scanWebhook(r row) (*carteiro.Webhook, error) {
	var w carteiro.Webhook
	var events string
	var desc, secret, preview *string
	var failing *int64
	var created, updated int64
	if err := r.Scan(&w.ID, &w.OrgID, &w.URL, &events, &w.Status, &desc, &secret, &preview, &failing, &w.FailedAttempts, &created, &updated); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(events), &w.Events); err != nil {
		return nil, fmt.Errorf("webhook %s events: %w", w.ID, err)
	}
	w.Description, w.Secret, w.SecretPreview = deref(desc), deref(secret), deref(preview)
	w.FailingSince, w.CreatedAt, w.UpdatedAt = fromMicrosPtr(failing), fromMicros(created), fromMicros(updated)
	return &w, nil
}

func scanWebhooks(rs rows, err error) ([]*carteiro.Webhook, error) {
	if err != nil {
		return nil, fmt.Errorf("store: list webhooks: %w", classify(err))
	}
	defer rs.Close()
	var out []*carteiro.Webhook
	for rs.Next() {
		w, err := scanWebhook(rs)
		if err != nil {
			return nil, fmt.Errorf("store: list webhooks: %w", classify(err))
		}
		out = append(out, w)
	}
	return out, rs.Err()
}

// CreateWebhook inserts w.
func (q *Queries) CreateWebhook(ctx context.Context, w *carteiro.Webhook) error {
	_, err := q.exec(ctx, `INSERT INTO webhooks (`+webhookColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		w.ID, w.OrgID, w.URL, *jsonString(w.Events), string(w.Status), nullString(w.Description), nullString(w.Secret),
		nullString(w.SecretPreview), microsPtr(w.FailingSince), w.FailedAttempts, micros(w.CreatedAt), micros(w.UpdatedAt))
	if err != nil {
		return fmt.Errorf("store: create webhook: %w", classify(err))
	}
	return nil
}

// UpdateWebhook stores every field of w.
func (q *Queries) UpdateWebhook(ctx context.Context, w *carteiro.Webhook) error {
	n, err := q.exec(ctx, `UPDATE webhooks SET url = ?, events = ?, status = ?, description = ?, secret = ?, secret_preview = ?,
		failing_since = ?, failed_attempts = ?, updated_at = ? WHERE id = ?`,
		w.URL, *jsonString(w.Events), string(w.Status), nullString(w.Description), nullString(w.Secret), nullString(w.SecretPreview),
		microsPtr(w.FailingSince), w.FailedAttempts, micros(w.UpdatedAt), w.ID)
	if err != nil {
		return fmt.Errorf("store: update webhook %s: %w", w.ID, classify(err))
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// Webhook returns a webhook of the organization.
func (q *Queries) Webhook(ctx context.Context, orgID, id string) (*carteiro.Webhook, error) {
	w, err := scanWebhook(q.queryRow(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE id = ? AND org_id = ?`, id, orgID))
	if err != nil {
		return nil, fmt.Errorf("store: webhook %s: %w", id, classify(err))
	}
	return w, nil
}

// WebhookByID returns a webhook whatever its organization (workers).
func (q *Queries) WebhookByID(ctx context.Context, id string) (*carteiro.Webhook, error) {
	w, err := scanWebhook(q.queryRow(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE id = ?`, id))
	if err != nil {
		return nil, fmt.Errorf("store: webhook %s: %w", id, classify(err))
	}
	return w, nil
}

// ListWebhooks returns the organization's webhooks, oldest first, of one
// status when status is not empty.
func (q *Queries) ListWebhooks(ctx context.Context, orgID, status string) ([]*carteiro.Webhook, error) {
	if status != "" {
		return scanWebhooks(q.query(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE org_id = ? AND status = ? ORDER BY created_at, id`, orgID, status))
	}
	return scanWebhooks(q.query(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE org_id = ? ORDER BY created_at, id`, orgID))
}

// DeleteWebhook removes a webhook and its deliveries for good.
func (q *Queries) DeleteWebhook(ctx context.Context, orgID, id string) error {
	if _, err := q.exec(ctx, `DELETE FROM webhook_payloads WHERE delivery_id IN
		(SELECT id FROM webhook_deliveries WHERE webhook_id = ? AND org_id = ?)`, id, orgID); err != nil {
		return fmt.Errorf("store: delete webhook payloads: %w", classify(err))
	}
	if _, err := q.exec(ctx, `DELETE FROM webhook_deliveries WHERE webhook_id = ? AND org_id = ?`, id, orgID); err != nil {
		return fmt.Errorf("store: delete webhook deliveries: %w", classify(err))
	}
	n, err := q.exec(ctx, `DELETE FROM webhooks WHERE id = ? AND org_id = ?`, id, orgID)
	if err != nil {
		return fmt.Errorf("store: delete webhook %s: %w", id, classify(err))
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// deliveryColumns are a delivery's columns but its payload, which is in
// webhook_payloads (migration 0023): written once, never with an attempt.
const deliveryColumns = `id, webhook_id, org_id, email_event_id, event_type, response_status, response_body, attempts, last_error, status, next_run_at, created_at`

// scanDelivery reads deliveryColumns and, when withPayload, the payload
// after them.
func scanDelivery(r row, withPayload bool) (*carteiro.WebhookDelivery, error) {
	var d carteiro.WebhookDelivery
	var eventID, body, lastErr *string
	var payload string
	var status *int64
	var next, created int64
	dest := []any{&d.ID, &d.WebhookID, &d.OrgID, &eventID, &d.EventType, &status, &body, &d.Attempts, &lastErr, &d.Status, &next, &created}
	if withPayload {
		dest = append(dest, &payload)
	}
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	d.EmailEventID, d.ResponseBody, d.LastError = deref(eventID), deref(body), deref(lastErr)
	if withPayload {
		d.Payload = []byte(payload)
	}
	if status != nil {
		d.ResponseStatus = int(*status)
	}
	d.NextRunAt, d.CreatedAt = fromMicros(next), fromMicros(created)
	return &d, nil
}

// InsertDelivery stores a new delivery.
func (q *Queries) InsertDelivery(ctx context.Context, d *carteiro.WebhookDelivery) error {
	return q.InsertDeliveries(ctx, []*carteiro.WebhookDelivery{d})
}

// InsertDeliveries stores new deliveries with multi-row statements: an
// event's deliveries to every subscribed webhook, or those of all the
// attempts that share a transaction.
func (q *Queries) InsertDeliveries(ctx context.Context, ds []*carteiro.WebhookDelivery) error {
	rows, payloads := make([][]any, len(ds)), make([][]any, len(ds))
	for i, d := range ds {
		rows[i] = []any{d.ID, d.WebhookID, d.OrgID, nullString(d.EmailEventID), d.EventType, nil, nil, d.Attempts, nil,
			string(d.Status), micros(d.NextRunAt), micros(d.CreatedAt)}
		payloads[i] = []any{d.ID, string(d.Payload)}
	}
	if err := q.insertRows(ctx, "webhook_deliveries", deliveryColumns, rows); err != nil {
		return fmt.Errorf("store: insert deliveries: %w", err)
	}
	if err := q.insertRows(ctx, "webhook_payloads", "delivery_id, payload", payloads); err != nil {
		return fmt.Errorf("store: insert delivery payloads: %w", err)
	}
	return nil
}

// UpdateDelivery records an attempt's outcome.
func (q *Queries) UpdateDelivery(ctx context.Context, d *carteiro.WebhookDelivery) error {
	return q.UpdateDeliveries(ctx, []*carteiro.WebhookDelivery{d})
}

// Delivery returns one delivery (workers).
func (q *Queries) Delivery(ctx context.Context, id string) (*carteiro.WebhookDelivery, error) {
	d, err := scanDelivery(q.queryRow(ctx, `SELECT `+qualified("d", deliveryColumns)+`, p.payload
		FROM webhook_deliveries d JOIN webhook_payloads p ON p.delivery_id = d.id WHERE d.id = ?`, id), true)
	if err != nil {
		return nil, fmt.Errorf("store: delivery %s: %w", id, classify(err))
	}
	return d, nil
}

// DeliveryFilter selects GET /webhooks/:id/deliveries.
type DeliveryFilter struct {
	WebhookID, EventType, Status string
	From, To                     *time.Time
	Limit                        int
}

// ListDeliveries returns a webhook's deliveries, newest first.
func (q *Queries) ListDeliveries(ctx context.Context, f DeliveryFilter) ([]*carteiro.WebhookDelivery, error) {
	query := `SELECT ` + deliveryColumns + ` FROM webhook_deliveries WHERE webhook_id = ?`
	args := []any{f.WebhookID}
	if f.EventType != "" {
		query += ` AND event_type = ?`
		args = append(args, f.EventType)
	}
	if f.Status != "" {
		query += ` AND status = ?`
		args = append(args, f.Status)
	}
	if f.From != nil {
		query += ` AND created_at >= ?`
		args = append(args, micros(*f.From))
	}
	if f.To != nil {
		query += ` AND created_at < ?`
		args = append(args, micros(*f.To))
	}
	query += ` ORDER BY created_at DESC, id DESC LIMIT ?`
	args = append(args, f.Limit)
	rs, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list deliveries: %w", classify(err))
	}
	defer rs.Close()
	var out []*carteiro.WebhookDelivery
	for rs.Next() {
		d, err := scanDelivery(rs, false)
		if err != nil {
			return nil, fmt.Errorf("store: list deliveries: %w", classify(err))
		}
		out = append(out, d)
	}
	return out, rs.Err()
}

// PendingDeliveryIDs lists a webhook's deliveries still waiting (D50: a
// paused webhook's deliveries wait for it to be active again).
func (q *Queries) PendingDeliveryIDs(ctx context.Context, webhookID string) ([]string, error) {
	rs, err := q.query(ctx, `SELECT id FROM webhook_deliveries WHERE webhook_id = ? AND status IN ('pending', 'failed') ORDER BY created_at, id`, webhookID)
	if err != nil {
		return nil, fmt.Errorf("store: pending deliveries: %w", classify(err))
	}
	defer rs.Close()
	var out []string
	for rs.Next() {
		var id string
		if err := rs.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: pending deliveries: %w", classify(err))
		}
		out = append(out, id)
	}
	return out, rs.Err()
}

// CountWebhookFailure counts a failed delivery attempt in its webhook's
// failure streak, atomically, since deliveries run concurrently, and
// disables an active webhook when the receiver said it is gone (410) or
// every attempt has failed for disableAfter over at least minAttempts (D49,
// D50). A success ends the streak (EndWebhookStreaks).
func (q *Queries) CountWebhookFailure(ctx context.Context, id string, gone bool, now time.Time, disableAfter time.Duration, minAttempts int) error {
	_, err := q.exec(ctx, `UPDATE webhooks SET
		status = CASE WHEN status = 'active' AND (? OR (failed_attempts + 1 >= ? AND COALESCE(failing_since, ?) <= ?)) THEN 'disabled' ELSE status END,
		failing_since = COALESCE(failing_since, ?), failed_attempts = failed_attempts + 1, updated_at = ? WHERE id = ?`,
		gone, minAttempts, micros(now), micros(now.Add(-disableAfter)), micros(now), micros(now), id)
	if err != nil {
		return fmt.Errorf("store: record webhook failure %s: %w", id, classify(err))
	}
	return nil
}

// EndWebhookStreaks clears the failure streaks of the webhooks ids, after
// successful deliveries to them, in one statement. Only a webhook with a
// streak is written: rewriting a row already clear took its lock until
// commit, so on PostgreSQL every delivery to one webhook committed after
// the one before it.
func (q *Queries) EndWebhookStreaks(ctx context.Context, ids []string) error {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	if len(ids) == 0 {
		return nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	_, err := q.exec(ctx, `UPDATE webhooks SET failing_since = NULL, failed_attempts = 0
		WHERE id IN (`+placeholders(len(ids))+`) AND (failing_since IS NOT NULL OR failed_attempts <> 0)`, args...)
	if err != nil {
		return fmt.Errorf("store: end webhook failure streaks: %w", classify(err))
	}
	return nil
}

// deliveryProgressColumns are the columns of the rows UpdateDeliveries
// joins to webhook_deliveries, with their types.
var deliveryProgressColumns = valueColumns{
	{"id", "TEXT"}, {"response_status", "BIGINT"}, {"response_body", "TEXT"}, {"attempts", "BIGINT"},
	{"last_error", "TEXT"}, {"status", "TEXT"}, {"next_run_at", "BIGINT"},
}

// UpdateDeliveries is UpdateDelivery for many deliveries, in id order.
func (q *Queries) UpdateDeliveries(ctx context.Context, ds []*carteiro.WebhookDelivery) error {
	rows := make([][]any, len(ds))
	for i, d := range ds {
		var status *int
		if d.ResponseStatus != 0 {
			status = &d.ResponseStatus
		}
		rows[i] = []any{d.ID, status, nullString(d.ResponseBody), d.Attempts, nullString(d.LastError), string(d.Status), micros(d.NextRunAt)}
	}
	slices.SortFunc(rows, func(a, b []any) int { return strings.Compare(a[0].(string), b[0].(string)) })
	err := q.updateFromValues(ctx, deliveryProgressColumns, rows, `UPDATE webhook_deliveries SET response_status = v.response_status,
		response_body = v.response_body, attempts = v.attempts, last_error = v.last_error, status = v.status, next_run_at = v.next_run_at
		FROM v WHERE webhook_deliveries.id = v.id`)
	if err != nil {
		return fmt.Errorf("store: update deliveries: %w", err)
	}
	return nil
}
