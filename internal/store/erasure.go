package store

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/carteiro/carteiro"
)

// ErasedAddress stands for an erased person's address in the records kept
// about emails to or from them (D78).
const ErasedAddress = "erased@erased.invalid"

// eraseBatch bounds the emails redacted in one transaction.
const eraseBatch = 100

// Eraser replaces one address, in any case, in stored text.
type Eraser struct {
	addr string // lower case
	re   *regexp.Regexp
}

// NewEraser erases addr, compared without regard to case, where it stands
// as a whole address: erasing a@x.example leaves ba@x.example and
// a@x.example.org alone.
func NewEraser(addr string) *Eraser {
	addr = strings.ToLower(addr)
	return &Eraser{addr: addr, re: regexp.MustCompile(`(?i)(^|[^a-z0-9._%+\-])` + regexp.QuoteMeta(addr) + `($|[^a-z0-9.\-])`)}
}

// text is s with every occurrence of the address replaced.
func (x *Eraser) text(s string) string {
	// Twice: two occurrences one character apart share that character,
	// which the first pass consumes with the first.
	for range 2 {
		s = x.re.ReplaceAllString(s, "${1}"+ErasedAddress+"${2}")
	}
	return s
}

func (x *Eraser) in(s string) bool { return x.re.MatchString(s) }

// json erases the address from a JSON document (a webhook payload, an
// event's metadata): a string that is the address, with or without a
// display name ("Pat <pat@x.example>"), becomes the erased address, and
// the address is replaced inside any other string. Text that is not JSON
// goes through text.
func (x *Eraser) json(doc string) string {
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		return x.text(doc)
	}
	out, err := json.Marshal(x.value(v))
	if err != nil {
		return x.text(doc)
	}
	return string(out)
}

func (x *Eraser) value(v any) any {
	switch v := v.(type) {
	case string:
		if x.isAddress(v) {
			return ErasedAddress
		}
		return x.text(v)
	case []any:
		for i := range v {
			v[i] = x.value(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = x.value(v[k])
		}
	}
	return v
}

// DeleteContactsOf deletes the address's contacts from every audience of the
// organization, keeping each audience's count exact, and returns how many.
func (s *Store) DeleteContactsOf(ctx context.Context, orgID string, x *Eraser) (int64, error) {
	var n int64
	err := s.InTx(ctx, func(tx *Tx) error {
		rs, err := tx.query(ctx, `SELECT id, audience_id FROM contacts WHERE org_id = ? AND email_key = ?`, orgID, x.addr)
		if err != nil {
			return err
		}
		var ids, audiences []string
		for rs.Next() {
			var id, audience string
			if err := rs.Scan(&id, &audience); err != nil {
				rs.Close()
				return err
			}
			ids, audiences = append(ids, id), append(audiences, audience)
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return err
		}
		for i, id := range ids {
			if err := tx.DeleteContact(ctx, orgID, audiences[i], id); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: delete contacts of an address: %w", classify(err))
	}
	return n, nil
}

// EmailsOf lists the organization's emails of the given modes sent from
// the address or to it (to, cc or bcc).
func (q *Queries) EmailsOf(ctx context.Context, orgID string, modes []carteiro.Mode, x *Eraser) ([]string, error) {
	args := []any{orgID}
	for _, m := range modes {
		args = append(args, string(m))
	}
	args = append(args, x.addr, "% "+likeEscape(x.addr)+" %")
	return q.ids(ctx, `SELECT id FROM emails WHERE org_id = ? AND mode IN (`+placeholders(len(modes))+`)
		AND (from_email = ? OR (' ' || search_recipients) LIKE ? ESCAPE '\') ORDER BY created_at, id`, args...)
}

// RedactEmails erases the address from the emails, a batch per
// transaction, and returns how many it changed (D78): their content is
// deleted, and the address becomes ErasedAddress in the sender, recipients,
// reply-to, subject, recipient rows and timeline. The erased recipient of
// an email still waiting to be sent is marked suppressed, so it is never
// sent to; such an email keeps its content while another recipient still
// waits for it (the content retention empties it later, D77), and is
// skipped when none does.
func (s *Store) RedactEmails(ctx context.Context, ids []string, x *Eraser, now time.Time) (int64, error) {
	var total int64
	for len(ids) > 0 {
		batch := ids[:min(eraseBatch, len(ids))]
		ids = ids[len(batch):]
		err := s.InTx(ctx, func(tx *Tx) error {
			n, err := tx.redactEmails(ctx, batch, x, now)
			total += n
			return err
		})
		if err != nil {
			return total, fmt.Errorf("store: erase an address: %w", classify(err))
		}
	}
	return total, nil
}

func (q *Queries) redactEmails(ctx context.Context, ids []string, x *Eraser, now time.Time) (int64, error) {
	waiting, err := q.redactRecipients(ctx, ids, x)
	if err != nil {
		return 0, err
	}
	if err := q.redactEvents(ctx, ids, x); err != nil {
		return 0, err
	}
	// A Message-ID a caller chose may hold anything, the address too: the
	// erased email no longer threads replies by it (D75).
	if err := q.deleteMessageIDsOf(ctx, ids); err != nil {
		return 0, err
	}
	rs, err := q.query(ctx, `SELECT id, status, from_addr, to_addrs, cc_addrs, bcc_addrs, reply_to, subject, search_recipients, from_email, message_id
		FROM emails WHERE id IN (`+placeholders(len(ids))+`)`, anys(ids)...)
	if err != nil {
		return 0, err
	}
	type redacted struct {
		id, status, searchRecipients, fromEmail string
		lists                                   [5]*string // from, to, cc, bcc, reply-to
		subject, messageID                      *string
	}
	var rows []redacted
	for rs.Next() {
		var r redacted
		if err := rs.Scan(&r.id, &r.status, &r.lists[0], &r.lists[1], &r.lists[2], &r.lists[3], &r.lists[4], &r.subject, &r.searchRecipients, &r.fromEmail, &r.messageID); err != nil {
			rs.Close()
			return 0, err
		}
		rows = append(rows, r)
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return 0, err
	}
	var n int64
	for _, r := range rows {
		for i, list := range r.lists {
			if r.lists[i], err = x.addressList(list); err != nil {
				return 0, fmt.Errorf("email %s: %w", r.id, err)
			}
		}
		if r.subject != nil {
			v := x.text(*r.subject)
			r.subject = &v
		}
		fields := strings.Fields(r.searchRecipients)
		for i, f := range fields {
			if f == x.addr {
				fields[i] = ErasedAddress
			}
		}
		search := strings.Join(fields, " ")
		if search != "" {
			search += " "
		}
		status := r.status
		w, isWaiting := waiting[r.id]
		if isWaiting && !w.othersWait {
			status = string(carteiro.EmailSkipped)
		}
		set := []string{"status = ?", "from_addr = ?", "to_addrs = ?", "cc_addrs = ?", "bcc_addrs = ?", "reply_to = ?", "subject = ?",
			"search_recipients = ?", "from_email = CASE WHEN from_email = ? THEN ? ELSE from_email END"}
		args := []any{status, r.lists[0], r.lists[1], r.lists[2], r.lists[3], r.lists[4], r.subject, search, x.addr, ErasedAddress}
		if r.messageID != nil && !strings.HasPrefix(*r.messageID, r.id+"@") {
			set, args = append(set, "message_id = ?"), append(args, x.generatedMessageID(r.id, r.fromEmail))
		}
		if !isWaiting || !w.othersWait {
			set = append(set, "html = NULL", "text_body = NULL", "attachments = NULL", "headers = NULL",
				"content_purged_at = COALESCE(content_purged_at, ?)")
			args = append(args, micros(now))
		}
		if _, err := q.exec(ctx, `UPDATE emails SET `+strings.Join(set, ", ")+` WHERE id = ?`, append(args, r.id)...); err != nil {
			return 0, fmt.Errorf("email %s: %w", r.id, err)
		}
		n++
	}
	return n, nil
}

// generatedMessageID replaces the Message-ID a caller gave an erased
// email (D74), which may hold anything, the address too: it becomes the
// one the service writes for its own emails (app's message), <email
// id@sender domain>, with the sender as erased; an email still waiting
// for another recipient is sent with it.
func (x *Eraser) generatedMessageID(emailID, fromEmail string) string {
	if strings.EqualFold(fromEmail, x.addr) {
		fromEmail = ErasedAddress
	}
	return emailID + "@" + carteiro.DomainOf(fromEmail)
}

// addressList erases the address from an encoded address list; a matching
// entry loses its display name too.
func (x *Eraser) addressList(list *string) (*string, error) {
	as, err := decodeAddresses(list)
	if err != nil || as == nil {
		return list, err
	}
	for i, a := range as {
		if strings.EqualFold(a.Email, x.addr) {
			as[i] = carteiro.Address{Email: ErasedAddress}
		}
	}
	return encodeAddresses(as), nil
}

// waitingEmail tells, for an email still waiting to be sent, whether a
// recipient other than the erased one still waits for it.
type waitingEmail struct{ othersWait bool }

// redactRecipients erases the address from the emails' recipient rows and
// returns the emails that still had recipients waiting.
func (q *Queries) redactRecipients(ctx context.Context, ids []string, x *Eraser) (map[string]waitingEmail, error) {
	rs, err := q.query(ctx, `SELECT email_id, position, address, status, last_message FROM email_recipients
		WHERE email_id IN (`+placeholders(len(ids))+`)`, anys(ids)...)
	if err != nil {
		return nil, err
	}
	type rcpt struct {
		emailID, address, status string
		position                 int
		message                  *string
	}
	var all []rcpt
	for rs.Next() {
		var r rcpt
		if err := rs.Scan(&r.emailID, &r.position, &r.address, &r.status, &r.message); err != nil {
			rs.Close()
			return nil, err
		}
		all = append(all, r)
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return nil, err
	}
	waiting := map[string]waitingEmail{}
	for _, r := range all {
		pending := r.status == string(carteiro.RecipientPending) || r.status == string(carteiro.RecipientDeferred)
		erased := strings.EqualFold(r.address, x.addr)
		if pending {
			w := waiting[r.emailID]
			w.othersWait = w.othersWait || !erased
			waiting[r.emailID] = w
		}
		if !erased && (r.message == nil || !x.in(*r.message)) {
			continue
		}
		status, address, msg := r.status, r.address, r.message
		if erased {
			address = ErasedAddress
			if pending {
				status = string(carteiro.RecipientSuppressed)
			}
		}
		if msg != nil {
			v := x.text(*msg)
			msg = &v
		}
		if _, err := q.exec(ctx, `UPDATE email_recipients SET address = ?, status = ?, last_message = ? WHERE email_id = ? AND position = ?`,
			address, status, msg, r.emailID, r.position); err != nil {
			return nil, err
		}
	}
	return waiting, nil
}

// redactEvents erases the address from the emails' timeline metadata.
func (q *Queries) redactEvents(ctx context.Context, ids []string, x *Eraser) error {
	rs, err := q.query(ctx, `SELECT id, metadata FROM email_events WHERE email_id IN (`+placeholders(len(ids))+`) AND metadata IS NOT NULL`, anys(ids)...)
	if err != nil {
		return err
	}
	changed := map[string]string{}
	for rs.Next() {
		var id, meta string
		if err := rs.Scan(&id, &meta); err != nil {
			rs.Close()
			return err
		}
		// A plain search: JSON may escape the character before the
		// address ("\u003c" for "<"), which the word match would miss.
		if strings.Contains(strings.ToLower(meta), x.addr) {
			changed[id] = x.json(meta)
		}
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return err
	}
	for id, meta := range changed {
		if _, err := q.exec(ctx, `UPDATE email_events SET metadata = ? WHERE id = ?`, meta, id); err != nil {
			return err
		}
	}
	return nil
}

// RedactWebhookDeliveries erases the address from the payloads and
// recorded responses of the organization's webhook deliveries, and
// returns how many it changed (D78: webhook logs alike). receivedDeleted
// says that the received messages from the address were deleted (D75):
// the email.received payloads of those messages then lose the message as
// well (see withoutReceivedMessage).
func (s *Store) RedactWebhookDeliveries(ctx context.Context, orgID string, x *Eraser, receivedDeleted bool) (int64, error) {
	pattern := "%" + likeEscape(x.addr) + "%"
	rs, err := s.query(ctx, `SELECT d.id, p.payload, d.response_body FROM webhook_deliveries d JOIN webhook_payloads p ON p.delivery_id = d.id
		WHERE d.org_id = ? AND (LOWER(p.payload) LIKE ? ESCAPE '\' OR LOWER(d.response_body) LIKE ? ESCAPE '\')`, orgID, pattern, pattern)
	if err != nil {
		return 0, fmt.Errorf("store: webhook deliveries of an address: %w", classify(err))
	}
	type delivery struct {
		id, payload string
		body        *string
	}
	var ds []delivery
	for rs.Next() {
		var d delivery
		if err := rs.Scan(&d.id, &d.payload, &d.body); err != nil {
			rs.Close()
			return 0, fmt.Errorf("store: webhook deliveries of an address: %w", classify(err))
		}
		ds = append(ds, d)
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return 0, fmt.Errorf("store: webhook deliveries of an address: %w", classify(err))
	}
	var n int64
	for _, d := range ds {
		if d.body != nil {
			v := x.text(*d.body)
			d.body = &v
		}
		payload := d.payload
		if receivedDeleted {
			payload = x.withoutReceivedMessage(payload)
		}
		err := s.InTx(ctx, func(tx *Tx) error {
			if _, err := tx.exec(ctx, `UPDATE webhook_payloads SET payload = ? WHERE delivery_id = ?`, x.json(payload), d.id); err != nil {
				return err
			}
			_, err := tx.exec(ctx, `UPDATE webhook_deliveries SET response_body = ? WHERE id = ?`, d.body, d.id)
			return err
		})
		if err != nil {
			return n, fmt.Errorf("store: erase an address from webhook deliveries: %w", classify(err))
		}
		n++
	}
	return n, nil
}
