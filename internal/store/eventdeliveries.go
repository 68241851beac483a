package store

import (
	"context"
	"fmt"
	"time"

	"github.com/carteiro/carteiro"
)

// EventDeliveryFilter selects one webhook's deliveries of some events
// (an email's page in the dashboard).
type EventDeliveryFilter struct {
	WebhookID string
	EventIDs  []string
	// From and To bound created_at. A delivery is written in the same
	// transaction as its event, so the events' times bound it; the bounds
	// let the (webhook_id, created_at) index limit the rows read, since
	// email_event_id has no index of its own.
	From, To time.Time
	Limit    int
}

// EventDeliveries returns the deliveries of f.EventIDs to f.WebhookID,
// oldest first.
func (q *Queries) EventDeliveries(ctx context.Context, f EventDeliveryFilter) ([]*carteiro.WebhookDelivery, error) {
	if len(f.EventIDs) == 0 {
		return nil, nil
	}
	args := append([]any{f.WebhookID, micros(f.From), micros(f.To)}, anys(f.EventIDs)...)
	args = append(args, f.Limit)
	rs, err := q.query(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries
		WHERE webhook_id = ? AND created_at >= ? AND created_at <= ? AND email_event_id IN (`+placeholders(len(f.EventIDs))+`)
		ORDER BY created_at, id LIMIT ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: event deliveries: %w", classify(err))
	}
	defer rs.Close()
	var out []*carteiro.WebhookDelivery
	for rs.Next() {
		d, err := scanDelivery(rs, false)
		if err != nil {
			return nil, fmt.Errorf("store: event deliveries: %w", classify(err))
		}
		out = append(out, d)
	}
	return out, rs.Err()
}
