package store_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

// TestDeliveryPayloadWrittenOnce (issue 28's bytes per received message):
// a delivery's payload is stored once, in a row of its own, and recording
// an attempt rewrites only the narrow delivery row, which has no payload
// column; the worker still reads the payload back whole, deleting the
// webhook deletes it, and lists leave it out.
func TestDeliveryPayloadWrittenOnce(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		w := createWebhook(t, st)
		payload := `{"id":"e1","type":"email.received","data":{"text":"` + strings.Repeat("corpo ", 4000) + `"}}`
		d := &carteiro.WebhookDelivery{ID: uuid.NewString(), WebhookID: w.ID, OrgID: w.OrgID, EventType: "email.received",
			Payload: []byte(payload), Status: carteiro.DeliveryPending, NextRunAt: baseTime, CreatedAt: baseTime}
		if err := st.InsertDelivery(ctx, d); err != nil {
			t.Fatal(err)
		}
		d.Attempts, d.Status, d.ResponseStatus = 1, carteiro.DeliverySuccess, 200
		if err := st.UpdateDelivery(ctx, d); err != nil {
			t.Fatal(err)
		}
		got, err := st.Delivery(ctx, d.ID)
		testserver.Must(t, err == nil && string(got.Payload) == payload && got.Attempts == 1 && got.Status == carteiro.DeliverySuccess,
			"read back: %v %+v", err, got)
		list, err := st.ListDeliveries(ctx, store.DeliveryFilter{WebhookID: w.ID, Limit: 10})
		testserver.Must(t, err == nil && len(list) == 1 && list[0].Payload == nil, "list: %v %+v", err, list)

		var columns string
		query := `SELECT GROUP_CONCAT(name) FROM pragma_table_info('webhook_deliveries')`
		if st.Dialect() == store.Postgres {
			query = `SELECT STRING_AGG(column_name, ',') FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'webhook_deliveries'`
		}
		rawQuery(t, st, query, nil, func(scan func(...any) error) error { return scan(&columns) })
		testserver.Must(t, columns != "" && !strings.Contains(columns, "payload"), "webhook_deliveries columns: %s", columns)

		if err := st.DeleteWebhook(ctx, w.OrgID, w.ID); err != nil {
			t.Fatal(err)
		}
		var left int
		rawQuery(t, st, `SELECT COUNT(*) FROM webhook_payloads`, nil, func(scan func(...any) error) error { return scan(&left) })
		testserver.Must(t, left == 0, "%d payloads left after the webhook was deleted", left)
	})
}
