package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/carteiro/carteiro"
)

const emailColumns = `id, org_id, mode, sandbox, api_key_id, api_key_name, domain_id, from_addr, to_addrs, cc_addrs, bcc_addrs,
reply_to, subject, html, text_body, headers, attachments, tags, status, attempts, last_error, message_id, idempotency_key,
created_at, scheduled_at, sent_at, delivered_at, bounced_at, failed_at, complained_at, suppressed_at, opened_at,
first_clicked_at, open_count, click_count, broadcast_id`

func scanEmail(r row) (*carteiro.Email, error) {
	var e carteiro.Email
	var keyID, keyName, domainID, from, cc, bcc, replyTo, subject, html, text, headers, attachments, tags, lastErr, msgID, idem, broadcast *string
	var to string
	var created int64
	var scheduled, sent, delivered, bounced, failed, complained, suppressed, opened, clicked *int64
	err := r.Scan(&e.ID, &e.OrgID, &e.Mode, &e.Sandbox, &keyID, &keyName, &domainID, &from, &to, &cc, &bcc,
		&replyTo, &subject, &html, &text, &headers, &attachments, &tags, &e.Status, &e.Attempts, &lastErr, &msgID, &idem,
		&created, &scheduled, &sent, &delivered, &bounced, &failed, &complained, &suppressed, &opened,
		&clicked, &e.OpenCount, &e.ClickCount, &broadcast)
	if err != nil {
		return nil, err
	}
	e.APIKeyID, e.APIKeyName, e.DomainID, e.BroadcastID = deref(keyID), deref(keyName), deref(domainID), deref(broadcast)
	e.Subject, e.HTML, e.Text, e.LastError, e.MessageID, e.IdempotencyKey = deref(subject), deref(html), deref(text), deref(lastErr), deref(msgID), deref(idem)
	fromList, err := decodeAddresses(from)
	if err != nil || len(fromList) != 1 {
		return nil, fmt.Errorf("email %s: bad from: %v", e.ID, err)
	}
	e.From = fromList[0]
	if e.To, err = decodeAddresses(&to); err != nil {
		return nil, err
	}
	if e.Cc, err = decodeAddresses(cc); err != nil {
		return nil, err
	}
	if e.Bcc, err = decodeAddresses(bcc); err != nil {
		return nil, err
	}
	if e.ReplyTo, err = decodeAddresses(replyTo); err != nil {
		return nil, err
	}
	if e.Headers, err = decodeMap[string](headers); err != nil {
		return nil, err
	}
	if e.Attachments, err = decodeAttachments(attachments); err != nil {
		return nil, err
	}
	if e.Tags, err = decodeTags(tags); err != nil {
		return nil, err
	}
	e.CreatedAt = fromMicros(created)
	e.ScheduledAt, e.SentAt, e.DeliveredAt = fromMicrosPtr(scheduled), fromMicrosPtr(sent), fromMicrosPtr(delivered)
	e.BouncedAt, e.FailedAt, e.ComplainedAt = fromMicrosPtr(bounced), fromMicrosPtr(failed), fromMicrosPtr(complained)
	e.SuppressedAt, e.OpenedAt, e.FirstClickedAt = fromMicrosPtr(suppressed), fromMicrosPtr(opened), fromMicrosPtr(clicked)
	return &e, nil
}

// InsertEmail stores a new email with its recipients and tags.
func (q *Queries) InsertEmail(ctx context.Context, e *carteiro.Email) error {
	return q.InsertEmails(ctx, []*carteiro.Email{e})
}

// emailInsertColumns are the columns InsertEmails writes.
var emailInsertColumns = emailColumns + `, search_recipients, first_attempt_at, from_email`

// InsertEmails inserts emails with their recipients and tags, each table
// with multi-row statements: a broadcast step writes 500 emails at once.
func (q *Queries) InsertEmails(ctx context.Context, es []*carteiro.Email) error {
	var emails, recipients, tags [][]any
	for _, e := range es {
		var search strings.Builder
		for i, a := range e.Recipients() {
			search.WriteString(strings.ToLower(a.Email))
			search.WriteByte(' ')
			recipients = append(recipients, []any{e.ID, i, a.Email, string(recipientStatusAtInsert(e)), nullString(e.LastError), micros(e.CreatedAt)})
		}
		for _, t := range e.Tags {
			tags = append(tags, []any{e.ID, e.OrgID, string(e.Mode), t.Name, t.Value})
		}
		from := []carteiro.Address{e.From}
		emails = append(emails, []any{
			e.ID, e.OrgID, string(e.Mode), e.Sandbox, nullString(e.APIKeyID), nullString(e.APIKeyName), nullString(e.DomainID),
			encodeAddresses(from), *encodeAddresses(e.To), encodeAddresses(e.Cc), encodeAddresses(e.Bcc),
			encodeAddresses(e.ReplyTo), nullString(e.Subject), nullString(e.HTML), nullString(e.Text), encodeMap(e.Headers),
			encodeAttachments(e.Attachments), encodeTags(e.Tags), string(e.Status), e.Attempts, nullString(e.LastError),
			nullString(e.MessageID), nullString(e.IdempotencyKey),
			micros(e.CreatedAt), microsPtr(e.ScheduledAt), microsPtr(e.SentAt), microsPtr(e.DeliveredAt), microsPtr(e.BouncedAt),
			microsPtr(e.FailedAt), microsPtr(e.ComplainedAt), microsPtr(e.SuppressedAt), microsPtr(e.OpenedAt),
			microsPtr(e.FirstClickedAt), e.OpenCount, e.ClickCount, nullString(e.BroadcastID), search.String(), nil,
			strings.ToLower(e.From.Email),
		})
	}
	if err := q.insertRows(ctx, "emails", emailInsertColumns, emails); err != nil {
		return fmt.Errorf("store: insert email: %w", err)
	}
	if err := q.insertRows(ctx, "email_recipients", "email_id, position, address, status, last_message, updated_at", recipients); err != nil {
		return fmt.Errorf("store: insert recipient: %w", err)
	}
	if err := q.insertRows(ctx, "email_tags", "email_id, org_id, mode, name, value", tags); err != nil {
		return fmt.Errorf("store: insert tag: %w", err)
	}
	if err := q.insertRows(ctx, "email_message_ids", "org_id, message_id, email_id", callerMessageIDRows(es)); err != nil {
		return fmt.Errorf("store: insert message id: %w", err)
	}
	return nil
}

// recipientStatusAtInsert is a new email's recipients' status: pending,
// or failed for an email that failed before any attempt (a broadcast
// contact whose email could not render, D37).
func recipientStatusAtInsert(e *carteiro.Email) carteiro.RecipientStatus {
	if e.Status == carteiro.EmailFailed {
		return carteiro.RecipientFailed
	}
	return carteiro.RecipientPending
}

// Email returns an email of the organization in the given mode; another
// mode's or organization's email is ErrNotFound (D7, D11).
func (q *Queries) Email(ctx context.Context, orgID string, mode carteiro.Mode, id string) (*carteiro.Email, error) {
	e, err := scanEmail(q.queryRow(ctx, `SELECT `+emailColumns+` FROM emails WHERE id = ? AND org_id = ? AND mode = ?`, id, orgID, string(mode)))
	if err != nil {
		return nil, fmt.Errorf("store: email %s: %w", id, classify(err))
	}
	return e, nil
}

// EmailByID returns an email whatever its organization (workers).
func (q *Queries) EmailByID(ctx context.Context, id string) (*carteiro.Email, error) {
	e, err := scanEmail(q.queryRow(ctx, `SELECT `+emailColumns+` FROM emails WHERE id = ?`, id))
	if err != nil {
		return nil, fmt.Errorf("store: email %s: %w", id, classify(err))
	}
	return e, nil
}

// BeginAttempt records that a delivery attempt of e starts: its status,
// attempt count, message id and first attempt time, and ev (the
// processing event), atomically; false, with nothing written, when the
// email is no longer queued or processing (a broadcast's cancel won the
// race, D43). On PostgreSQL that is one statement, committed on its own,
// instead of a transaction's four round trips; on SQLite it joins the
// shared commit.
func (s *Store) BeginAttempt(ctx context.Context, e *carteiro.Email, at time.Time, ev *carteiro.EmailEvent) (bool, error) {
	if s.pool == nil {
		var ok bool
		err := s.inSharedOnSQLite(ctx, func(tx *Tx) error {
			claimed, err := tx.ClaimAttempt(ctx, e, at)
			if err != nil || !claimed {
				return err
			}
			ok = true
			return tx.InsertEvent(ctx, ev)
		})
		if err != nil {
			return false, fmt.Errorf("store: begin attempt of %s: %w", e.ID, classify(err))
		}
		return ok, nil
	}
	var meta *string
	if len(ev.Metadata) > 0 {
		meta = jsonString(ev.Metadata)
	}
	n, err := s.exec(ctx, `WITH marked AS (`+beginAttemptUpdate+` RETURNING id)
		INSERT INTO email_events (id, email_id, type, created_at, metadata)
		SELECT CAST(? AS TEXT), id, CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS TEXT) FROM marked`,
		string(e.Status), e.Attempts, nullString(e.MessageID), micros(at), e.ID,
		ev.ID, string(ev.Type), micros(ev.Timestamp), meta)
	if err != nil {
		return false, fmt.Errorf("store: begin attempt of %s: %w", e.ID, classify(err))
	}
	return n == 1, nil
}

// ClaimAttempt is BeginAttempt's conditional update inside tx, without
// the event: it sets e's status, attempt count, message id and first
// attempt time, and reports false, with nothing written, when the email is
// no longer queued or processing (a broadcast's cancel committed first,
// D43). BeginAttempt runs it on SQLite, in a shared commit.
func (q *Queries) ClaimAttempt(ctx context.Context, e *carteiro.Email, at time.Time) (bool, error) {
	n, err := q.exec(ctx, beginAttemptUpdate, string(e.Status), e.Attempts, nullString(e.MessageID), micros(at), e.ID)
	if err != nil {
		return false, fmt.Errorf("store: claim email %s: %w", e.ID, classify(err))
	}
	return n == 1, nil
}

// ClaimEmails is ClaimAttempt for many emails, as a transaction of
// simulated attempts writes them: it moves each still queued or processing
// email to processing, locking it, and reports which; the others (a
// broadcast's cancel committed first, D43) are left untouched. The attempt
// fields come with the outcome's progress (UpdateEmailsProgress).
func (q *Queries) ClaimEmails(ctx context.Context, ids []string) (map[string]bool, error) {
	ids = slices.Compact(slices.Sorted(slices.Values(ids))) // one lock order everywhere
	claimed := make(map[string]bool, len(ids))
	if len(ids) == 0 {
		return claimed, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rs, err := q.queryWrite(ctx, `UPDATE emails SET status = 'processing' WHERE id IN (`+placeholders(len(ids))+`)
		AND status IN ('queued', 'processing') RETURNING id`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: claim emails: %w", classify(err))
	}
	defer rs.Close()
	if err := collectKeys(rs, claimed); err != nil {
		return nil, fmt.Errorf("store: claim emails: %w", classify(err))
	}
	return claimed, nil
}

// beginAttemptUpdate is the UPDATE of BeginAttempt and ClaimAttempt, on
// both stores.
const beginAttemptUpdate = `UPDATE emails SET status = ?, attempts = ?, message_id = ?, first_attempt_at = COALESCE(first_attempt_at, ?)
	WHERE id = ? AND status IN ('queued', 'processing')`

// FirstAttemptAt is when delivery of the email was first tried (D23's
// 72-hour window), or nil.
func (q *Queries) FirstAttemptAt(ctx context.Context, id string) (*time.Time, error) {
	var v *int64
	if err := q.queryRow(ctx, `SELECT first_attempt_at FROM emails WHERE id = ?`, id).Scan(&v); err != nil {
		return nil, fmt.Errorf("store: email %s: %w", id, classify(err))
	}
	return fromMicrosPtr(v), nil
}

// SetEmailStatusIf moves an email from one status to another and reports
// whether it did (cancel, and claiming a scheduled email).
func (q *Queries) SetEmailStatusIf(ctx context.Context, id string, from, to carteiro.EmailStatus) (bool, error) {
	n, err := q.exec(ctx, `UPDATE emails SET status = ? WHERE id = ? AND status = ?`, string(to), id, string(from))
	if err != nil {
		return false, fmt.Errorf("store: update email %s: %w", id, classify(err))
	}
	return n == 1, nil
}

// Recipients returns the recipients of an email in envelope order.
func (q *Queries) Recipients(ctx context.Context, emailID string) ([]*carteiro.Recipient, error) {
	rs, err := q.query(ctx, recipientsQuery, emailID)
	if err != nil {
		return nil, fmt.Errorf("store: recipients: %w", classify(err))
	}
	defer rs.Close()
	return scanRecipients(rs)
}

const recipientsQuery = `SELECT email_id, position, address, status, last_code, last_enhanced, last_message, updated_at
		FROM email_recipients WHERE email_id = ? ORDER BY position`

func scanRecipients(rs keyRows) ([]*carteiro.Recipient, error) {
	var out []*carteiro.Recipient
	for rs.Next() {
		var r carteiro.Recipient
		var code *int64
		var enh, msg *string
		var updated int64
		if err := rs.Scan(&r.EmailID, &r.Position, &r.Address, &r.Status, &code, &enh, &msg, &updated); err != nil {
			return nil, fmt.Errorf("store: recipients: %w", classify(err))
		}
		if code != nil {
			r.LastCode = int(*code)
		}
		r.LastEnhanced, r.LastMessage, r.UpdatedAt = deref(enh), deref(msg), fromMicros(updated)
		out = append(out, &r)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("store: recipients: %w", classify(err))
	}
	return out, nil
}

// EmailForDelivery returns an email, whatever its organization, its
// recipients in order and its live sending domain (nil when it has none or
// the domain was deleted): the delivery worker's first read. On PostgreSQL
// the three queries go in one round trip.
func (s *Store) EmailForDelivery(ctx context.Context, id string) (*carteiro.Email, []*carteiro.Recipient, *carteiro.Domain, error) {
	if s.pool == nil {
		e, err := s.EmailByID(ctx, id)
		if err != nil {
			return nil, nil, nil, err
		}
		rs, err := s.Recipients(ctx, id)
		if err != nil || e.DomainID == "" {
			return e, rs, nil, err
		}
		d, err := s.DomainByID(ctx, e.DomainID)
		if errors.Is(err, ErrNotFound) {
			return e, rs, nil, nil
		}
		return e, rs, d, err
	}
	batch := &pgx.Batch{}
	batch.Queue(rebind(`SELECT `+emailColumns+` FROM emails WHERE id = ?`), id)
	batch.Queue(rebind(recipientsQuery), id)
	batch.Queue(rebind(`SELECT `+domainColumns+` FROM domains WHERE id = (SELECT domain_id FROM emails WHERE id = ?) AND deleted_at IS NULL`), id)
	results := s.pool.SendBatch(ctx, batch)
	defer results.Close()
	e, err := scanEmail(results.QueryRow())
	if err != nil {
		return nil, nil, nil, fmt.Errorf("store: email %s: %w", id, classify(err))
	}
	rows, err := results.Query()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("store: recipients: %w", classify(err))
	}
	recipients, err := scanRecipients(rows)
	rows.Close()
	if err != nil {
		return nil, nil, nil, err
	}
	d, err := scanDomain(results.QueryRow())
	if errors.Is(classify(err), ErrNotFound) {
		return e, recipients, nil, nil
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("store: sending domain of %s: %w", id, classify(err))
	}
	return e, recipients, d, nil
}

// InsertEvent appends to an email's timeline.
func (q *Queries) InsertEvent(ctx context.Context, ev *carteiro.EmailEvent) error {
	return q.InsertEvents(ctx, []*carteiro.EmailEvent{ev})
}

// InsertEvents inserts timeline events with multi-row statements.
func (q *Queries) InsertEvents(ctx context.Context, evs []*carteiro.EmailEvent) error {
	rows := make([][]any, len(evs))
	for i, ev := range evs {
		var meta *string
		if len(ev.Metadata) > 0 {
			meta = jsonString(ev.Metadata)
		}
		rows[i] = []any{ev.ID, ev.EmailID, string(ev.Type), micros(ev.Timestamp), meta}
	}
	if err := q.insertRows(ctx, "email_events", "id, email_id, type, created_at, metadata", rows); err != nil {
		return fmt.Errorf("store: insert event: %w", err)
	}
	return nil
}

// EmailEvents returns an email's timeline in order (D26: equal timestamps
// keep insertion order, which the time-ordered uuid v7 ids preserve).
func (q *Queries) EmailEvents(ctx context.Context, emailID string) ([]*carteiro.EmailEvent, error) {
	rs, err := q.query(ctx, `SELECT id, email_id, type, created_at, metadata FROM email_events WHERE email_id = ? ORDER BY created_at, id`, emailID)
	if err != nil {
		return nil, fmt.Errorf("store: events: %w", classify(err))
	}
	defer rs.Close()
	var out []*carteiro.EmailEvent
	for rs.Next() {
		var ev carteiro.EmailEvent
		var created int64
		var meta *string
		if err := rs.Scan(&ev.ID, &ev.EmailID, &ev.Type, &created, &meta); err != nil {
			return nil, fmt.Errorf("store: events: %w", classify(err))
		}
		ev.Timestamp = fromMicros(created)
		if ev.Metadata, err = decodeMap[any](meta); err != nil {
			return nil, err
		}
		out = append(out, &ev)
	}
	return out, rs.Err()
}

// EmailTags returns the distinct tag names and values of an organization's
// emails in one mode, names and values sorted.
func (q *Queries) EmailTags(ctx context.Context, orgID string, mode carteiro.Mode) ([]carteiro.Tag, error) {
	rs, err := q.query(ctx, `SELECT DISTINCT name, value FROM email_tags WHERE org_id = ? AND mode = ? ORDER BY name, value`, orgID, string(mode))
	if err != nil {
		return nil, fmt.Errorf("store: tags: %w", classify(err))
	}
	defer rs.Close()
	var out []carteiro.Tag
	for rs.Next() {
		var t carteiro.Tag
		if err := rs.Scan(&t.Name, &t.Value); err != nil {
			return nil, fmt.Errorf("store: tags: %w", classify(err))
		}
		out = append(out, t)
	}
	return out, rs.Err()
}

// CountOpen adds one open to an email atomically and returns the new count
// (1 means the first open: openedAt is set then, D53).
func (q *Queries) CountOpen(ctx context.Context, id string, at time.Time) (int, error) {
	var n int
	err := q.queryRowWrite(ctx, `UPDATE emails SET open_count = open_count + 1, opened_at = COALESCE(opened_at, ?) WHERE id = ? RETURNING open_count`,
		micros(at), id).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: count open %s: %w", id, classify(err))
	}
	return n, nil
}

// CountClick adds one click to an email atomically and returns the new count.
func (q *Queries) CountClick(ctx context.Context, id string, at time.Time) (int, error) {
	var n int
	err := q.queryRowWrite(ctx, `UPDATE emails SET click_count = click_count + 1, first_clicked_at = COALESCE(first_clicked_at, ?) WHERE id = ? RETURNING click_count`,
		micros(at), id).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: count click %s: %w", id, classify(err))
	}
	return n, nil
}

// MarkComplained sets complainedAt once and reports whether this call set
// it, so a complaint reported twice, even concurrently, is recorded once.
func (q *Queries) MarkComplained(ctx context.Context, id string, at time.Time) (bool, error) {
	n, err := q.exec(ctx, `UPDATE emails SET complained_at = ? WHERE id = ? AND complained_at IS NULL`, micros(at), id)
	if err != nil {
		return false, fmt.Errorf("store: complaint %s: %w", id, classify(err))
	}
	return n == 1, nil
}
