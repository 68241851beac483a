package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/mimeparse"
)

const inboundColumns = `id, org_id, domain_id, mail_from, rcpt_to, from_address, search_to, subject, message_id,
in_reply_to_email_id, spf, dkim, dmarc, auth_results, parsed, size, received_at`

func scanInbound(r row) (*carteiro.InboundEmail, error) {
	var e carteiro.InboundEmail
	var rcpt, parsed string
	var inReplyTo *string
	var received int64
	if err := r.Scan(&e.ID, &e.OrgID, &e.DomainID, &e.MailFrom, &rcpt, &e.FromAddress, &e.SearchTo, &e.Subject, &e.MessageID,
		&inReplyTo, &e.SPF, &e.DKIM, &e.DMARC, &e.AuthResults, &parsed, &e.Size, &received); err != nil {
		return nil, err
	}
	if inReplyTo != nil {
		e.InReplyToEmailID = *inReplyTo
	}
	e.ReceivedAt = fromMicros(received)
	if err := json.Unmarshal([]byte(rcpt), &e.RcptTo); err != nil {
		return nil, fmt.Errorf("decode rcpt_to: %w", err)
	}
	e.Message = &mimeparse.Message{}
	if err := json.Unmarshal([]byte(parsed), e.Message); err != nil {
		return nil, fmt.Errorf("decode parsed message: %w", err)
	}
	return &e, nil
}

// InsertInboundEmail stores a received message and its raw bytes; the
// parsed parts are stored without the text and html bodies.
func (q *Queries) InsertInboundEmail(ctx context.Context, e *carteiro.InboundEmail, raw []byte) error {
	rcpt, err := json.Marshal(e.RcptTo)
	if err != nil {
		return fmt.Errorf("store: encode rcpt_to: %w", err)
	}
	// The bodies are left out: they are in the raw message, and repeating
	// them doubled the bytes each message writes (GetInboundEmail reads
	// them back from raw; email.received carries them in its payload).
	withoutBodies := *e.Message
	withoutBodies.Text, withoutBodies.HTML = "", ""
	parsed, err := json.Marshal(&withoutBodies)
	if err != nil {
		return fmt.Errorf("store: encode parsed message: %w", err)
	}
	var inReplyTo *string
	if e.InReplyToEmailID != "" {
		inReplyTo = &e.InReplyToEmailID
	}
	if _, err := q.exec(ctx, `INSERT INTO inbound_emails (`+inboundColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.ID, e.OrgID, e.DomainID, e.MailFrom, string(rcpt), e.FromAddress, e.SearchTo, e.Subject, e.MessageID,
		inReplyTo, e.SPF, e.DKIM, e.DMARC, e.AuthResults, string(parsed), e.Size, micros(e.ReceivedAt)); err != nil {
		return fmt.Errorf("store: insert inbound email: %w", classify(err))
	}
	if _, err := q.exec(ctx, `INSERT INTO inbound_raw (id, raw) VALUES (?, ?)`, e.ID, raw); err != nil {
		return fmt.Errorf("store: insert inbound raw: %w", classify(err))
	}
	return nil
}

// InboundEmail returns one received message of the organization, without
// its text and html bodies (rows stored before 2026-11-27 have them), which
// are read from the raw message.
func (q *Queries) InboundEmail(ctx context.Context, orgID, id string) (*carteiro.InboundEmail, error) {
	e, err := scanInbound(q.queryRow(ctx, `SELECT `+inboundColumns+` FROM inbound_emails WHERE id = ? AND org_id = ?`, id, orgID))
	if err != nil {
		return nil, fmt.Errorf("store: inbound email %s: %w", id, classify(err))
	}
	return e, nil
}

// InboundRaw returns a received message's bytes as received.
func (q *Queries) InboundRaw(ctx context.Context, orgID, id string) ([]byte, error) {
	var raw []byte
	err := q.queryRow(ctx, `SELECT r.raw FROM inbound_raw r JOIN inbound_emails e ON e.id = r.id WHERE r.id = ? AND e.org_id = ?`,
		id, orgID).Scan(&raw)
	if err != nil {
		return nil, fmt.Errorf("store: inbound raw %s: %w", id, classify(err))
	}
	return raw, nil
}

// InboundFilter selects received messages for GET /inbound-emails (D75).
type InboundFilter struct {
	OrgID       string
	FromAddress string // case-insensitive substring of the From address
	ToAddress   string // case-insensitive substring of To, Cc or the envelope
	From, To    *time.Time
	After       *time.Time // cursor: only messages received before it
	Limit       int
}

// ListInboundEmails returns one page, newest first, cut as ListEmails does.
func (q *Queries) ListInboundEmails(ctx context.Context, f InboundFilter) ([]*carteiro.InboundEmail, *time.Time, error) {
	conds := []string{"org_id = ?"}
	args := []any{f.OrgID}
	add := func(cond string, a any) { conds, args = append(conds, cond), append(args, a) }
	if f.FromAddress != "" {
		add(`from_address LIKE ? ESCAPE '\'`, "%"+likeEscape(strings.ToLower(f.FromAddress))+"%")
	}
	if f.ToAddress != "" {
		add(`search_to LIKE ? ESCAPE '\'`, "%"+likeEscape(strings.ToLower(f.ToAddress))+"%")
	}
	if f.From != nil {
		add("received_at >= ?", micros(*f.From))
	}
	if f.To != nil {
		add("received_at < ?", micros(*f.To))
	}
	if f.After != nil {
		add("received_at < ?", micros(*f.After))
	}
	where := strings.Join(conds, " AND ")
	rows, err := q.listInbound(ctx, where, args, f.Limit+1)
	if err != nil {
		return nil, nil, err
	}
	return cutPage(rows, f.Limit, func(e *carteiro.InboundEmail) time.Time { return e.ReceivedAt },
		func(at time.Time) ([]*carteiro.InboundEmail, error) {
			return q.listInbound(ctx, where+" AND received_at = ?", append(args, micros(at)), -1)
		})
}

func (q *Queries) listInbound(ctx context.Context, where string, args []any, limit int) ([]*carteiro.InboundEmail, error) {
	query := `SELECT ` + inboundColumns + ` FROM inbound_emails WHERE ` + where + ` ORDER BY received_at DESC, id DESC`
	if limit > 0 {
		query += ` LIMIT ?`
		args = append(args, limit)
	}
	rs, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list inbound emails: %w", classify(err))
	}
	defer rs.Close()
	var out []*carteiro.InboundEmail
	for rs.Next() {
		e, err := scanInbound(rs)
		if err != nil {
			return nil, fmt.Errorf("store: list inbound emails: %w", classify(err))
		}
		out = append(out, e)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("store: list inbound emails: %w", classify(err))
	}
	return out, nil
}

// DeleteInboundEmail deletes a received message and its raw bytes; call
// it in a transaction so that both go together.
func (q *Queries) DeleteInboundEmail(ctx context.Context, orgID, id string) error {
	n, err := q.exec(ctx, `DELETE FROM inbound_emails WHERE id = ? AND org_id = ?`, id, orgID)
	if err != nil {
		return fmt.Errorf("store: delete inbound email %s: %w", id, classify(err))
	}
	if n == 0 {
		return ErrNotFound
	}
	if _, err := q.exec(ctx, `DELETE FROM inbound_raw WHERE id = ?`, id); err != nil {
		return fmt.Errorf("store: delete inbound raw %s: %w", id, classify(err))
	}
	return nil
}

// deleteInboundWhere deletes, with their raw bytes, the received messages
// the condition selects, at most limit of them; call it in a transaction.
func (q *Queries) deleteInboundWhere(ctx context.Context, cond string, args []any, limit int) (int, error) {
	rs, err := q.query(ctx, `SELECT id FROM inbound_emails WHERE `+cond+` LIMIT ?`, append(args, limit)...)
	if err != nil {
		return 0, fmt.Errorf("store: select inbound emails: %w", classify(err))
	}
	var ids []any
	for rs.Next() {
		var id string
		if err := rs.Scan(&id); err != nil {
			rs.Close()
			return 0, fmt.Errorf("store: select inbound emails: %w", classify(err))
		}
		ids = append(ids, id)
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return 0, fmt.Errorf("store: select inbound emails: %w", classify(err))
	}
	if len(ids) == 0 {
		return 0, nil
	}
	in := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ") + ")"
	if _, err := q.exec(ctx, `DELETE FROM inbound_raw WHERE id IN `+in, ids...); err != nil {
		return 0, fmt.Errorf("store: delete inbound raw: %w", classify(err))
	}
	if _, err := q.exec(ctx, `DELETE FROM inbound_emails WHERE id IN `+in, ids...); err != nil {
		return 0, fmt.Errorf("store: delete inbound emails: %w", classify(err))
	}
	return len(ids), nil
}

// PurgeInbound deletes up to limit messages received before cutoff (D75's
// retention) and reports how many.
func (q *Queries) PurgeInbound(ctx context.Context, cutoff time.Time, limit int) (int, error) {
	return q.deleteInboundWhere(ctx, "received_at < ?", []any{micros(cutoff)}, limit)
}

// EraseInboundFrom deletes up to limit of the organization's messages from
// address (D78) and reports how many.
func (q *Queries) EraseInboundFrom(ctx context.Context, orgID, address string, limit int) (int, error) {
	return q.deleteInboundWhere(ctx, "org_id = ? AND from_address = ?", []any{orgID, strings.ToLower(address)}, limit)
}
