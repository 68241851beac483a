package app_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
)

// An email's page lists the webhook deliveries of its events however long
// after them they were made (issue 26: they were looked for within five
// minutes of the events), and never another email's.
func TestEmailDetailsListLateDeliveries(t *testing.T) {
	b := setup(t)
	id := b.sendAndDeliver(t, "reader@example.com")
	other := b.sendAndDeliver(t, "someone@example.com")
	hook := &carteiro.Webhook{ID: uuid.NewString(), OrgID: b.live.Org.ID, URL: "https://hooks.example/in", Events: []string{"email.sent"},
		Status: carteiro.WebhookActive, CreatedAt: b.clock.Now(), UpdatedAt: b.clock.Now()}
	if err := b.store.CreateWebhook(b.ctx, hook); err != nil {
		t.Fatal(err)
	}
	delivery := func(emailID string, after time.Duration) *carteiro.WebhookDelivery {
		t.Helper()
		evs, err := b.store.EmailEvents(b.ctx, emailID)
		if err != nil || len(evs) == 0 {
			t.Fatalf("events of %s: %v %v", emailID, evs, err)
		}
		var ev *carteiro.EmailEvent
		for _, e := range evs {
			if carteiro.WebhookType(e.Type) != "" {
				ev = e
			}
		}
		if ev == nil {
			t.Fatalf("email %s has no event a webhook receives: %v", emailID, evs)
		}
		at := ev.Timestamp.Add(after)
		return &carteiro.WebhookDelivery{ID: uuid.NewString(), WebhookID: hook.ID, OrgID: hook.OrgID, EmailEventID: ev.ID,
			EventType: carteiro.WebhookType(ev.Type), Payload: []byte(`{}`), Status: carteiro.DeliveryPending, NextRunAt: at, CreatedAt: at}
	}
	late := delivery(id, 3*24*time.Hour)
	if err := b.store.InsertDeliveries(b.ctx, []*carteiro.WebhookDelivery{late, delivery(other, time.Second)}); err != nil {
		t.Fatal(err)
	}
	details, err := b.app.GetEmailDetails(b.ctx, b.live, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(details.Deliveries) != 1 || details.Deliveries[0].ID != late.ID {
		t.Fatalf("deliveries %+v, want only %s, made three days after its event", details.Deliveries, late.ID)
	}
}
