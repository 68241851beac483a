package store

import (
	"context"
	"fmt"
)

// EmptyReceivedDeliveries empties the email.received webhook payloads of
// a received message that DELETE /inbound-emails/:id deletes (D75): the
// delivery log, and any retry still pending, then carry nothing the
// message gave (see emptyReceived), only that a message with that id
// arrived and was deleted. The deliveries are found by their event id,
// which for email.received is the message's id (raiseReceived), through
// the index on it; call it in the transaction that deletes the message.
func (q *Queries) EmptyReceivedDeliveries(ctx context.Context, orgID, inboundID string) error {
	rs, err := q.query(ctx, `SELECT p.delivery_id, p.payload FROM webhook_deliveries d JOIN webhook_payloads p ON p.delivery_id = d.id
		WHERE d.email_event_id = ? AND d.org_id = ? AND d.event_type = ?`, inboundID, orgID, receivedEventType)
	if err != nil {
		return fmt.Errorf("store: deliveries of inbound email %s: %w", inboundID, classify(err))
	}
	changed := map[string]string{}
	for rs.Next() {
		var id, payload string
		if err := rs.Scan(&id, &payload); err != nil {
			rs.Close()
			return fmt.Errorf("store: deliveries of inbound email %s: %w", inboundID, classify(err))
		}
		ofMessage := func(data map[string]any) bool { return data["inboundEmailId"] == inboundID }
		if emptied := emptyReceived(payload, ofMessage); emptied != payload {
			changed[id] = emptied
		}
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return fmt.Errorf("store: deliveries of inbound email %s: %w", inboundID, classify(err))
	}
	for id, payload := range changed {
		if _, err := q.exec(ctx, `UPDATE webhook_payloads SET payload = ? WHERE delivery_id = ?`, payload, id); err != nil {
			return fmt.Errorf("store: empty delivery %s: %w", id, classify(err))
		}
	}
	return nil
}
