package store

import (
	"context"
	"fmt"

	"github.com/carteiro/carteiro"
)

// EventDeliveries returns the webhook deliveries of an organization's
// events eventIDs (an email's page in the dashboard), oldest first,
// found through webhook_deliveries_by_event whenever they were made.
func (q *Queries) EventDeliveries(ctx context.Context, orgID string, eventIDs []string) ([]*carteiro.WebhookDelivery, error) {
	if len(eventIDs) == 0 {
		return nil, nil
	}
	args := append([]any{orgID}, anys(eventIDs)...)
	rs, err := q.query(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries
		WHERE org_id = ? AND email_event_id IN (`+placeholders(len(eventIDs))+`)
		ORDER BY created_at, id`, args...)
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
