package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/carteiro/carteiro"
)

// The retention purge (D77) works in small batches: it reads a batch of
// ids on the read side, then changes them in a short write transaction of
// their own, so the single SQLite writer, which accepts share, is held a
// few milliseconds at a time. Positions let a pass walk forward through
// rows it chose to keep (an email still waiting, or with recent events)
// without reading them again.

// Position is where a pass over emails in (created_at, id) order stands.
type Position struct {
	CreatedAt time.Time
	ID        string
}

// DueEmail is an email the purge may act on, and the bytes of content it
// holds (0 for a record due for deletion).
type DueEmail struct {
	Position
	ContentBytes int64
}

// waitingStatuses are the statuses of an email not yet sent: the purge never
// touches one, however old (a scheduled email keeps its content).
const waitingStatuses = `('scheduled', 'queued', 'processing')`

// eventSince is true for an email e with an event at or after the cutoff
// (the argument after it). A scalar subquery that reads the email's last
// event through email_events_by_email, one index probe per listed email,
// rather than NOT EXISTS: PostgreSQL turned NOT EXISTS into an anti-join
// (or a hashed subplan) that read every event since the cutoff, and the
// emails before it, at each batch (issue 31; TestPurgeListingsWalkTheIndex).
// A scalar subquery with LIMIT is neither pulled up nor hashed.
const eventSince = `COALESCE((SELECT ev.created_at FROM email_events ev WHERE ev.email_id = e.id
	ORDER BY ev.created_at DESC LIMIT 1), 0) >= ?`

// contentBytes is the stored size of an email's content, in bytes.
func (q *Queries) contentBytes() string {
	size := "LENGTH(CAST(%s AS BLOB))"
	if q.dialect == Postgres {
		size = "OCTET_LENGTH(%s)"
	}
	out := ""
	for i, col := range []string{"html", "text_body", "attachments", "headers"} {
		if i > 0 {
			out += " + "
		}
		out += "COALESCE(" + fmt.Sprintf(size, col) + ", 0)"
	}
	return out
}

// The ContentBytes of a listed email that is not due: its content is gone
// already, or it must keep it for now (waiting to be sent, or with a recent
// event).
const (
	contentGone = "-1"
	contentKept = "-2"
)

// Due is true for an email whose content the purge deletes now.
func (d DueEmail) Due() bool { return d.ContentBytes >= 0 }

// Kept is true for an email that still holds content it may not lose yet.
func (d DueEmail) Kept() bool { return d.ContentBytes == -2 }

// ContentDue lists up to limit emails of one organization and mode after
// pos, oldest first, that are older than cutoff and are not waiting to be
// sent (D77), with the content each still holds (0 for one emptied
// already) and whether it is due: still holding content and without an
// event since cutoff. It walks the index every listing uses (org_id, mode,
// created_at, id); the caller keeps its position between passes
// (ContentPosition), so emptied emails are walked once.
func (q *Queries) ContentDue(ctx context.Context, orgID string, mode carteiro.Mode, cutoff time.Time, pos Position, limit int) ([]DueEmail, error) {
	query, args := q.contentDueQuery(orgID, mode, cutoff, pos, limit)
	rs, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: emails due for content deletion: %w", classify(err))
	}
	return scanDue(rs)
}

func (q *Queries) contentDueQuery(orgID string, mode carteiro.Mode, cutoff time.Time, pos Position, limit int) (string, []any) {
	return `SELECT e.created_at, e.id, CASE WHEN e.content_purged_at IS NOT NULL THEN ` + contentGone + `
			WHEN e.status IN ` + waitingStatuses + ` OR ` + eventSince + ` THEN ` + contentKept + `
			ELSE ` + q.contentBytes() + ` END
		FROM emails e
		WHERE e.org_id = ? AND e.mode = ? AND e.created_at < ? AND (e.created_at, e.id) > (?, ?)
		ORDER BY e.created_at, e.id LIMIT ?`, []any{micros(cutoff), orgID, string(mode), micros(cutoff), micros(pos.CreatedAt), pos.ID, limit}
}

// contentPositionKey is the settings key of the content purge's position
// for one organization and mode.
func contentPositionKey(orgID string, mode carteiro.Mode) string {
	return "retention.content." + orgID + "." + string(mode)
}

// ContentPosition is where the content purge of an organization and mode
// starts: every email before it holds no content, or none it may lose yet
// was passed. The zero Position when none was kept.
func (q *Queries) ContentPosition(ctx context.Context, orgID string, mode carteiro.Mode) (Position, error) {
	v, err := q.Setting(ctx, contentPositionKey(orgID, mode))
	if errors.Is(err, ErrNotFound) {
		return Position{}, nil
	}
	if err != nil {
		return Position{}, err
	}
	micro, id, ok := strings.Cut(v, " ")
	n, perr := strconv.ParseInt(micro, 10, 64)
	if !ok || perr != nil {
		return Position{}, nil // unreadable: walk from the start
	}
	return Position{CreatedAt: fromMicros(n), ID: id}, nil
}

// SetContentPosition keeps where the next content purge of an
// organization and mode starts.
func (s *Store) SetContentPosition(ctx context.Context, orgID string, mode carteiro.Mode, pos Position) error {
	v := strconv.FormatInt(micros(pos.CreatedAt), 10) + " " + pos.ID
	if _, err := s.exec(ctx, `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
		contentPositionKey(orgID, mode), v); err != nil {
		return fmt.Errorf("store: keep the content purge's position: %w", classify(err))
	}
	return nil
}

// RecordsDue lists up to limit emails of one organization and mode after
// pos, oldest first, created before cutoff; Due tells those whose records
// are due for deletion (D77): not waiting to be sent, and whose last event
// is before cutoff. The others are listed too, so that a listing always
// costs limit steps of the index every listing uses (org_id, mode,
// created_at, id); the caller goes on after the last one listed.
func (q *Queries) RecordsDue(ctx context.Context, orgID string, mode carteiro.Mode, cutoff time.Time, pos Position, limit int) ([]DueEmail, error) {
	query, args := recordsDueQuery(orgID, mode, cutoff, pos, limit)
	rs, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: emails due for deletion: %w", classify(err))
	}
	return scanDue(rs)
}

// recordsDueQuery lists, and tells which are due, rather than filtering in
// WHERE: with only the index's own conditions left, both stores walk
// emails_by_time for limit rows and stop, however many of them are kept;
// with the conditions in WHERE PostgreSQL read every email before the
// cutoff and sorted them, at each batch (issue 31).
func recordsDueQuery(orgID string, mode carteiro.Mode, cutoff time.Time, pos Position, limit int) (string, []any) {
	return `SELECT e.created_at, e.id, CASE WHEN e.status IN ` + waitingStatuses + ` OR ` + eventSince + ` THEN ` + contentKept + ` ELSE 0 END
		FROM emails e
		WHERE e.org_id = ? AND e.mode = ? AND e.created_at < ? AND (e.created_at, e.id) > (?, ?)
		ORDER BY e.created_at, e.id LIMIT ?`, []any{micros(cutoff), orgID, string(mode), micros(cutoff), micros(pos.CreatedAt), pos.ID, limit}
}

func scanDue(rs rows) ([]DueEmail, error) {
	defer rs.Close()
	var out []DueEmail
	for rs.Next() {
		var d DueEmail
		var created int64
		if err := rs.Scan(&created, &d.ID, &d.ContentBytes); err != nil {
			return nil, fmt.Errorf("store: emails due: %w", classify(err))
		}
		d.CreatedAt = fromMicros(created)
		out = append(out, d)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("store: emails due: %w", classify(err))
	}
	return out, nil
}

// EmptyContent deletes the html, text, attachments and custom headers of
// the emails and returns how many it emptied (D77, D78). Emails emptied
// already are left alone.
func (s *Store) EmptyContent(ctx context.Context, ids []string, at time.Time) (int64, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	args := append([]any{micros(at)}, anys(ids)...)
	n, err := s.exec(ctx, `UPDATE emails SET html = NULL, text_body = NULL, attachments = NULL, headers = NULL, content_purged_at = ?
		WHERE id IN (`+placeholders(len(ids))+`) AND content_purged_at IS NULL`, args...)
	if err != nil {
		return 0, fmt.Errorf("store: delete content: %w", classify(err))
	}
	return n, nil
}

// DeleteEmails deletes emails with their recipients, tags and timeline in
// one transaction and returns how many emails it deleted (D77).
func (s *Store) DeleteEmails(ctx context.Context, ids []string) (int64, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	in, args := placeholders(len(ids)), anys(ids)
	var n int64
	err := s.InTx(ctx, func(tx *Tx) error {
		if err := tx.deleteMessageIDsOf(ctx, ids); err != nil {
			return err
		}
		for _, table := range []string{"email_tags", "email_events", "email_recipients"} {
			if _, err := tx.exec(ctx, `DELETE FROM `+table+` WHERE email_id IN (`+in+`)`, args...); err != nil {
				return fmt.Errorf("%s: %w", table, err)
			}
		}
		var err error
		n, err = tx.exec(ctx, `DELETE FROM emails WHERE id IN (`+in+`)`, args...)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: delete emails: %w", classify(err))
	}
	return n, nil
}

// OrganizationIDs lists every organization, for passes made one
// organization at a time.
func (q *Queries) OrganizationIDs(ctx context.Context) ([]string, error) {
	return q.ids(ctx, `SELECT id FROM organizations ORDER BY id`)
}

// WebhookIDs lists every webhook of every organization.
func (q *Queries) WebhookIDs(ctx context.Context) ([]string, error) {
	return q.ids(ctx, `SELECT id FROM webhooks ORDER BY id`)
}

func (q *Queries) ids(ctx context.Context, query string, args ...any) ([]string, error) {
	rs, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: ids: %w", classify(err))
	}
	defer rs.Close()
	var out []string
	for rs.Next() {
		var id string
		if err := rs.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: ids: %w", classify(err))
		}
		out = append(out, id)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("store: ids: %w", classify(err))
	}
	return out, nil
}

// DeleteOldDeliveries deletes up to limit of a webhook's deliveries made
// before cutoff, oldest first, and returns how many (D77: 30 days).
func (s *Store) DeleteOldDeliveries(ctx context.Context, webhookID string, cutoff time.Time, limit int) (int64, error) {
	ids, err := s.ids(ctx, `SELECT id FROM webhook_deliveries WHERE webhook_id = ? AND created_at < ? ORDER BY created_at, id LIMIT ?`,
		webhookID, micros(cutoff), limit)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	var n int64
	err = s.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.exec(ctx, `DELETE FROM webhook_payloads WHERE delivery_id IN (`+placeholders(len(ids))+`)`, anys(ids)...); err != nil {
			return err
		}
		n, err = tx.exec(ctx, `DELETE FROM webhook_deliveries WHERE id IN (`+placeholders(len(ids))+`)`, anys(ids)...)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: delete old webhook deliveries: %w", classify(err))
	}
	return n, nil
}

// IdempotencyPosition is where a pass over idempotency keys stands, in the
// order of their primary key.
type IdempotencyPosition struct{ OrgID, Endpoint, Key string }

// DeleteExpiredIdempotency looks at up to limit keys after pos and deletes
// those created before cutoff. It returns the position to go on from, how
// many it deleted, and done once it reached the last key. The table has no
// index on time, so the pass walks its primary key a range at a time.
func (s *Store) DeleteExpiredIdempotency(ctx context.Context, cutoff time.Time, pos IdempotencyPosition, limit int) (IdempotencyPosition, int64, bool, error) {
	rs, err := s.query(ctx, `SELECT org_id, endpoint, idem_key FROM idempotency_keys WHERE (org_id, endpoint, idem_key) > (?, ?, ?)
		ORDER BY org_id, endpoint, idem_key LIMIT ?`, pos.OrgID, pos.Endpoint, pos.Key, limit)
	if err != nil {
		return pos, 0, false, fmt.Errorf("store: idempotency keys: %w", classify(err))
	}
	var last IdempotencyPosition
	seen := 0
	for rs.Next() {
		if err := rs.Scan(&last.OrgID, &last.Endpoint, &last.Key); err != nil {
			rs.Close()
			return pos, 0, false, fmt.Errorf("store: idempotency keys: %w", classify(err))
		}
		seen++
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return pos, 0, false, fmt.Errorf("store: idempotency keys: %w", classify(err))
	}
	if seen == 0 {
		return pos, 0, true, nil
	}
	n, err := s.exec(ctx, `DELETE FROM idempotency_keys WHERE (org_id, endpoint, idem_key) > (?, ?, ?)
		AND (org_id, endpoint, idem_key) <= (?, ?, ?) AND created_at < ?`,
		pos.OrgID, pos.Endpoint, pos.Key, last.OrgID, last.Endpoint, last.Key, micros(cutoff))
	if err != nil {
		return pos, 0, false, fmt.Errorf("store: delete expired idempotency keys: %w", classify(err))
	}
	return last, n, seen < limit, nil
}

func anys(ids []string) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}
