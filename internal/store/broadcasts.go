package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/carteiro/carteiro"
)

const broadcastColumns = `b.id, b.org_id, b.mode, b.audience_id, b.name, b.template_id, b.subject, b.from_email, b.reply_to, b.html,
b.text_body, b.variables, b.status, b.scheduled_at, b.sent_at, b.cancelled_at, b.recipients_total, b.recipients_queued,
b.recipients_failed, b.cursor_created_at, b.cursor_id, b.chunks_pending, b.created_at, b.updated_at, a.name`

const broadcastFrom = ` FROM broadcasts b LEFT JOIN audiences a ON a.id = b.audience_id `

func scanBroadcast(r row) (*carteiro.Broadcast, error) {
	var b carteiro.Broadcast
	var from, vars string
	var replyTo *string
	var scheduled, sent, cancelled *int64
	var created, updated int64
	if err := r.Scan(&b.ID, &b.OrgID, &b.Mode, &b.AudienceID, &b.Name, &b.TemplateID, &b.Subject, &from, &replyTo, &b.HTML,
		&b.Text, &vars, &b.Status, &scheduled, &sent, &cancelled, &b.RecipientsTotal, &b.RecipientsQueued,
		&b.RecipientsFailed, &b.CursorCreatedAt, &b.CursorID, &b.ChunksPending, &created, &updated, &b.AudienceName); err != nil {
		return nil, err
	}
	addr, err := carteiro.ParseAddress("from", from)
	if err != nil {
		return nil, fmt.Errorf("broadcast %s from: %w", b.ID, err)
	}
	b.From = addr
	if replyTo != nil {
		rt, err := carteiro.ParseAddress("replyTo", *replyTo)
		if err != nil {
			return nil, fmt.Errorf("broadcast %s replyTo: %w", b.ID, err)
		}
		b.ReplyTo = &rt
	}
	// The variables are stored as the JSON text of the request's object and
	// come back with their members in that order ({{#each}} follows it).
	if b.Variables, err = carteiro.ParseJSONObject([]byte(vars)); err != nil {
		return nil, fmt.Errorf("broadcast %s variables: %w", b.ID, err)
	}
	b.ScheduledAt, b.SentAt, b.CancelledAt = fromMicrosPtr(scheduled), fromMicrosPtr(sent), fromMicrosPtr(cancelled)
	b.CreatedAt, b.UpdatedAt = fromMicros(created), fromMicros(updated)
	return &b, nil
}

// CreateBroadcast inserts b.
func (q *Queries) CreateBroadcast(ctx context.Context, b *carteiro.Broadcast) error {
	var replyTo *string
	if b.ReplyTo != nil {
		s := b.ReplyTo.String()
		replyTo = &s
	}
	vars := b.Variables
	if vars == nil {
		vars = carteiro.NewJSONObject(0)
	}
	_, err := q.exec(ctx, `INSERT INTO broadcasts (id, org_id, mode, audience_id, name, template_id, subject, from_email, reply_to, html,
		text_body, variables, status, scheduled_at, sent_at, cancelled_at, recipients_total, recipients_queued, recipients_failed,
		cursor_created_at, cursor_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		b.ID, b.OrgID, string(b.Mode), b.AudienceID, b.Name, b.TemplateID, b.Subject, b.From.String(), replyTo, b.HTML, b.Text,
		*jsonString(vars), string(b.Status), microsPtr(b.ScheduledAt), microsPtr(b.SentAt), microsPtr(b.CancelledAt),
		b.RecipientsTotal, b.RecipientsQueued, b.RecipientsFailed, b.CursorCreatedAt, b.CursorID, micros(b.CreatedAt), micros(b.UpdatedAt))
	if err != nil {
		return fmt.Errorf("store: create broadcast: %w", classify(err))
	}
	return nil
}

// Broadcast returns a broadcast of the organization in one mode (D7).
func (q *Queries) Broadcast(ctx context.Context, orgID string, mode carteiro.Mode, id string) (*carteiro.Broadcast, error) {
	b, err := scanBroadcast(q.queryRow(ctx, `SELECT `+broadcastColumns+broadcastFrom+`WHERE b.id = ? AND b.org_id = ? AND b.mode = ?`,
		id, orgID, string(mode)))
	if err != nil {
		return nil, fmt.Errorf("store: broadcast %s: %w", id, classify(err))
	}
	return b, nil
}

// LockSendingBroadcast returns the broadcast if it is sending, holding its
// row until the transaction ends, so a cancel waits for a fan-out step in
// progress and the step sees a cancel that committed first (D43).
func (q *Queries) LockSendingBroadcast(ctx context.Context, id string) (*carteiro.Broadcast, error) {
	n, err := q.exec(ctx, `UPDATE broadcasts SET updated_at = updated_at WHERE id = ? AND status = 'sending'`, id)
	if err != nil {
		return nil, fmt.Errorf("store: lock broadcast %s: %w", id, classify(err))
	}
	if n == 0 {
		return nil, ErrNotFound
	}
	b, err := scanBroadcast(q.queryRow(ctx, `SELECT `+broadcastColumns+broadcastFrom+`WHERE b.id = ?`, id))
	if err != nil {
		return nil, fmt.Errorf("store: broadcast %s: %w", id, classify(err))
	}
	return b, nil
}

// SetBroadcastStatus moves a broadcast from one of the statuses in from to
// b.Status, storing its timestamps and counters; false when it was in none
// of them (another request won).
func (q *Queries) SetBroadcastStatus(ctx context.Context, b *carteiro.Broadcast, from ...carteiro.BroadcastStatus) (bool, error) {
	args := []any{string(b.Status), microsPtr(b.ScheduledAt), microsPtr(b.SentAt), microsPtr(b.CancelledAt), b.RecipientsTotal,
		b.RecipientsQueued, b.RecipientsFailed, b.CursorCreatedAt, b.CursorID, b.ChunksPending, micros(b.UpdatedAt), b.ID}
	for _, s := range from {
		args = append(args, string(s))
	}
	n, err := q.exec(ctx, `UPDATE broadcasts SET status = ?, scheduled_at = ?, sent_at = ?, cancelled_at = ?, recipients_total = ?,
		recipients_queued = ?, recipients_failed = ?, cursor_created_at = ?, cursor_id = ?, chunks_pending = ?, updated_at = ?
		WHERE id = ? AND status IN (`+placeholders(len(from))+`)`, args...)
	if err != nil {
		return false, fmt.Errorf("store: broadcast %s status: %w", b.ID, classify(err))
	}
	return n == 1, nil
}

// CancelBroadcastEmails cancels the broadcast's emails still waiting in
// the queue; those already handed to SMTP are left alone (D43).
func (q *Queries) CancelBroadcastEmails(ctx context.Context, broadcastID string) (int64, error) {
	n, err := q.exec(ctx, `UPDATE emails SET status = 'cancelled' WHERE broadcast_id = ? AND status = 'queued'`, broadcastID)
	if err != nil {
		return 0, fmt.Errorf("store: cancel emails of %s: %w", broadcastID, classify(err))
	}
	return n, nil
}

// BroadcastFilter selects a page of GET /broadcasts (4.5, D15, D27).
type BroadcastFilter struct {
	OrgID    string
	Mode     carteiro.Mode
	Status   string
	From, To *time.Time
	After    *time.Time
	Limit    int
}

// ListBroadcasts returns a page, newest first, and the next cursor.
func (q *Queries) ListBroadcasts(ctx context.Context, f BroadcastFilter) ([]*carteiro.Broadcast, *time.Time, error) {
	conds := []string{"b.org_id = ?", "b.mode = ?"}
	args := []any{f.OrgID, string(f.Mode)}
	if f.Status != "" {
		conds = append(conds, "b.status = ?")
		args = append(args, f.Status)
	}
	if f.From != nil {
		conds = append(conds, "b.created_at >= ?")
		args = append(args, micros(*f.From))
	}
	if f.To != nil {
		conds = append(conds, "b.created_at <= ?")
		args = append(args, micros(*f.To))
	}
	return broadcastList.page(ctx, q, strings.Join(conds, " AND "), args, f.After, f.Limit)
}

var broadcastList = listQuery[*carteiro.Broadcast]{what: "broadcasts", selectFrom: `SELECT ` + broadcastColumns + broadcastFrom,
	createdCol: "b.created_at", scan: scanBroadcast, createdAt: func(b *carteiro.Broadcast) time.Time { return b.CreatedAt }}

// BroadcastByID returns a broadcast by id alone, for workers.
func (q *Queries) BroadcastByID(ctx context.Context, id string) (*carteiro.Broadcast, error) {
	b, err := scanBroadcast(q.queryRow(ctx, `SELECT `+broadcastColumns+broadcastFrom+`WHERE b.id = ?`, id))
	if err != nil {
		return nil, fmt.Errorf("store: broadcast %s: %w", id, classify(err))
	}
	return b, nil
}

// CancelBroadcast marks a scheduled or sending broadcast cancelled,
// touching nothing else (the fan-out owns the counters); false when it was
// in another status.
func (q *Queries) CancelBroadcast(ctx context.Context, id string, at time.Time) (bool, error) {
	n, err := q.exec(ctx, `UPDATE broadcasts SET status = 'cancelled', cancelled_at = ?, updated_at = ? WHERE id = ? AND status IN ('scheduled', 'sending')`,
		micros(at), micros(at), id)
	if err != nil {
		return false, fmt.Errorf("store: cancel broadcast %s: %w", id, classify(err))
	}
	return n == 1, nil
}
