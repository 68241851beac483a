package store

import (
	"context"
	"fmt"

	"github.com/carteiro/carteiro"
)

// Message-IDs that callers gave their emails (D74) are kept in
// email_message_ids (migration 0022), so that threading a received reply
// (D75) looks them up by index: emails.message_id has none, and a reply
// naming an unknown id would otherwise read all of an organization's
// emails, at the will of whoever sends it. Ids the service writes are
// found by the email's id they start with and are not kept here.

// byMessageIDQuery finds, by the table's primary key, the emails of one
// organization (the first argument) whose Message-ID is one of the n
// others; the newest email last.
func byMessageIDQuery(n int) string {
	return `SELECT message_id, email_id FROM email_message_ids WHERE org_id = ? AND message_id IN (` + placeholders(n) + `)
		ORDER BY email_id`
}

// EmailsByMessageID maps those of messageIDs that are the Message-ID a
// caller gave one of the organization's emails to that email's id (the
// newest when several share it), for threading received replies (D75).
func (q *Queries) EmailsByMessageID(ctx context.Context, orgID string, messageIDs []string) (map[string]string, error) {
	out := map[string]string{}
	if len(messageIDs) == 0 {
		return out, nil
	}
	rs, err := q.query(ctx, byMessageIDQuery(len(messageIDs)), append([]any{orgID}, anys(messageIDs)...)...)
	if err != nil {
		return nil, fmt.Errorf("store: emails by message id: %w", classify(err))
	}
	defer rs.Close()
	for rs.Next() {
		var messageID, id string
		if err := rs.Scan(&messageID, &id); err != nil {
			return nil, fmt.Errorf("store: emails by message id: %w", classify(err))
		}
		out[messageID] = id // ordered by id (UUIDv7): the newest wins
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("store: emails by message id: %w", classify(err))
	}
	return out, nil
}

// callerMessageIDRows are the email_message_ids rows of the emails that
// bring a Message-ID of their own; none for the others, which is nearly
// every email (an API send cannot set one).
func callerMessageIDRows(es []*carteiro.Email) [][]any {
	var rows [][]any
	for _, e := range es {
		if e.MessageID != "" {
			rows = append(rows, []any{e.OrgID, e.MessageID, e.ID})
		}
	}
	return rows
}

// deleteMessageIDsOf deletes the kept Message-IDs of the emails, by the
// primary key, before the emails are deleted (D77) or erased (D78); call
// it in the transaction that changes them.
func (q *Queries) deleteMessageIDsOf(ctx context.Context, emailIDs []string) error {
	if len(emailIDs) == 0 {
		return nil
	}
	if _, err := q.exec(ctx, `DELETE FROM email_message_ids WHERE (org_id, message_id, email_id) IN
		(SELECT org_id, message_id, id FROM emails WHERE id IN (`+placeholders(len(emailIDs))+`) AND message_id IS NOT NULL)`,
		anys(emailIDs)...); err != nil {
		return fmt.Errorf("email message ids: %w", err)
	}
	return nil
}
