package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/carteiro/carteiro"
)

// Delivery progress written many rows at a time: the outcomes of several
// delivery attempts that share one transaction are written with one
// UPDATE per table instead of one per recipient and one per email, each a
// round trip to PostgreSQL.

// EmailProgress is one email's progress as UpdateEmailProgress writes it.
type EmailProgress struct {
	Email *carteiro.Email
	// FirstAttemptAt is set as the email's first attempt time unless one
	// is already recorded; nil leaves it alone.
	FirstAttemptAt *time.Time
}

// UpdateEmailProgress writes e's status, attempts, last error, message id,
// schedule and first-time timestamps and counters.
func (q *Queries) UpdateEmailProgress(ctx context.Context, e *carteiro.Email, firstAttemptAt *time.Time) error {
	return q.UpdateEmailsProgress(ctx, []EmailProgress{{Email: e, FirstAttemptAt: firstAttemptAt}})
}

// emailProgressColumns are the columns of the rows UpdateEmailsProgress
// joins to emails, with their types.
var emailProgressColumns = valueColumns{
	{"id", "TEXT"}, {"status", "TEXT"}, {"attempts", "BIGINT"}, {"last_error", "TEXT"}, {"message_id", "TEXT"},
	{"sent_at", "BIGINT"}, {"delivered_at", "BIGINT"}, {"bounced_at", "BIGINT"}, {"failed_at", "BIGINT"},
	{"suppressed_at", "BIGINT"}, {"scheduled_at", "BIGINT"}, {"complained_at", "BIGINT"}, {"opened_at", "BIGINT"},
	{"first_clicked_at", "BIGINT"}, {"open_count", "BIGINT"}, {"click_count", "BIGINT"}, {"first_attempt_at", "BIGINT"},
}

// UpdateEmailsProgress is UpdateEmailProgress for many emails. An email
// given twice gets its last values. Rows are updated in id order, the same
// in every transaction.
func (q *Queries) UpdateEmailsProgress(ctx context.Context, ps []EmailProgress) error {
	last := make(map[string]EmailProgress, len(ps))
	for _, p := range ps {
		last[p.Email.ID] = p
	}
	rows := make([][]any, 0, len(last))
	for _, p := range last {
		e := p.Email
		rows = append(rows, []any{e.ID, string(e.Status), e.Attempts, nullString(e.LastError), nullString(e.MessageID),
			microsPtr(e.SentAt), microsPtr(e.DeliveredAt), microsPtr(e.BouncedAt), microsPtr(e.FailedAt),
			microsPtr(e.SuppressedAt), microsPtr(e.ScheduledAt), microsPtr(e.ComplainedAt), microsPtr(e.OpenedAt),
			microsPtr(e.FirstClickedAt), e.OpenCount, e.ClickCount, microsPtr(p.FirstAttemptAt)})
	}
	slices.SortFunc(rows, func(a, b []any) int { return cmp.Compare(a[0].(string), b[0].(string)) })
	// First-time timestamps and counters only ever move forward: another
	// path (a complaint, an open, a DSN) may have written them since the
	// email was read, and a stale copy must not undo that.
	err := q.updateFromValues(ctx, emailProgressColumns, rows, `UPDATE emails SET status = v.status, attempts = v.attempts,
		last_error = v.last_error, message_id = v.message_id,
		sent_at = COALESCE(emails.sent_at, v.sent_at), delivered_at = COALESCE(emails.delivered_at, v.delivered_at),
		bounced_at = COALESCE(emails.bounced_at, v.bounced_at), failed_at = COALESCE(emails.failed_at, v.failed_at),
		suppressed_at = COALESCE(emails.suppressed_at, v.suppressed_at), scheduled_at = v.scheduled_at,
		complained_at = COALESCE(emails.complained_at, v.complained_at), opened_at = COALESCE(emails.opened_at, v.opened_at),
		first_clicked_at = COALESCE(emails.first_clicked_at, v.first_clicked_at),
		open_count = CASE WHEN emails.open_count > v.open_count THEN emails.open_count ELSE v.open_count END,
		click_count = CASE WHEN emails.click_count > v.click_count THEN emails.click_count ELSE v.click_count END,
		first_attempt_at = COALESCE(emails.first_attempt_at, v.first_attempt_at)
		FROM v WHERE emails.id = v.id`)
	if err != nil {
		return fmt.Errorf("store: update emails: %w", err)
	}
	return nil
}

// UpdateRecipient writes a recipient's status and last reply.
func (q *Queries) UpdateRecipient(ctx context.Context, r *carteiro.Recipient) error {
	return q.UpdateRecipients(ctx, []*carteiro.Recipient{r})
}

// recipientColumns are the columns of the rows UpdateRecipients joins to
// email_recipients, with their types.
var recipientColumns = valueColumns{
	{"email_id", "TEXT"}, {"position", "BIGINT"}, {"status", "TEXT"}, {"last_code", "BIGINT"},
	{"last_enhanced", "TEXT"}, {"last_message", "TEXT"}, {"updated_at", "BIGINT"},
}

// UpdateRecipients is UpdateRecipient for many recipients. A recipient
// given twice gets its last values. Rows are updated in key order.
func (q *Queries) UpdateRecipients(ctx context.Context, rs []*carteiro.Recipient) error {
	type key struct {
		email    string
		position int
	}
	last := make(map[key]*carteiro.Recipient, len(rs))
	for _, r := range rs {
		last[key{r.EmailID, r.Position}] = r
	}
	sorted := make([]*carteiro.Recipient, 0, len(last))
	for _, r := range last {
		sorted = append(sorted, r)
	}
	slices.SortFunc(sorted, func(a, b *carteiro.Recipient) int {
		return cmp.Or(cmp.Compare(a.EmailID, b.EmailID), cmp.Compare(a.Position, b.Position))
	})
	rows := make([][]any, len(sorted))
	for i, r := range sorted {
		var code *int
		if r.LastCode != 0 {
			code = &r.LastCode
		}
		rows[i] = []any{r.EmailID, r.Position, string(r.Status), code, nullString(r.LastEnhanced), nullString(r.LastMessage), micros(r.UpdatedAt)}
	}
	err := q.updateFromValues(ctx, recipientColumns, rows, `UPDATE email_recipients SET status = v.status, last_code = v.last_code,
		last_enhanced = v.last_enhanced, last_message = v.last_message, updated_at = v.updated_at
		FROM v WHERE email_recipients.email_id = v.email_id AND email_recipients.position = v.position`)
	if err != nil {
		return fmt.Errorf("store: update recipients: %w", err)
	}
	return nil
}

// valueColumn is a column of the rows updateFromValues joins, with the SQL
// type its values are cast to: PostgreSQL cannot infer a bound value's
// type inside VALUES, and a NULL must still have the column's type.
type valueColumn struct{ name, sqlType string }

type valueColumns []valueColumn

// updateFromValues runs update, which reads rows as the table v (with
// columns), once per chunk of rows that fits the bound-parameter limit.
// Both stores take it: SQLite has UPDATE ... FROM since 3.33, and neither
// needs more than a common table expression to name VALUES' columns.
func (q *Queries) updateFromValues(ctx context.Context, columns valueColumns, rows [][]any, update string) error {
	if len(rows) == 0 {
		return nil
	}
	names := make([]string, len(columns))
	casts := make([]string, len(columns))
	for i, c := range columns {
		names[i] = c.name
		casts[i] = "CAST(? AS " + c.sqlType + ")"
	}
	head := "WITH v (" + strings.Join(names, ", ") + ") AS (VALUES "
	tuple := "(" + strings.Join(casts, ", ") + ")"
	perStatement := max(1, maxBoundValues/len(columns))
	for start := 0; start < len(rows); start += perStatement {
		chunk := rows[start:min(start+perStatement, len(rows))]
		var b strings.Builder
		b.WriteString(head)
		args := make([]any, 0, len(chunk)*len(columns))
		for i, r := range chunk {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(tuple)
			args = append(args, r...)
		}
		b.WriteString(") ")
		b.WriteString(update)
		if _, err := q.exec(ctx, b.String(), args...); err != nil {
			return classify(err)
		}
	}
	return nil
}
