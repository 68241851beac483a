package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

// TestRecordWebhookFailure: a failed attempt is written with its webhook's
// failure streak and its retry's writes in one commit (D49), or not at
// all: when the retry cannot be written, the delivery still reads as it
// was and the streak is not counted, so the attempt runs again as it was.
func TestRecordWebhookFailure(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		w := createWebhook(t, st)
		d := &carteiro.WebhookDelivery{ID: uuid.NewString(), WebhookID: w.ID, OrgID: w.OrgID, EventType: "email.sent",
			Payload: []byte(`{"id":"e1"}`), Status: carteiro.DeliveryPending, NextRunAt: baseTime, CreatedAt: baseTime}
		if err := st.InsertDelivery(ctx, d); err != nil {
			t.Fatal(err)
		}
		at := baseTime.Add(time.Hour)
		failed := *d
		failed.Attempts, failed.Status, failed.ResponseStatus, failed.NextRunAt = 1, carteiro.DeliveryFailed, 503, at.Add(time.Minute)
		f := store.WebhookFailure{Delivery: &failed, At: at, DisableAfter: 5 * 24 * time.Hour, DisableMinAttempts: 20}

		boom := errors.New("boom")
		err := st.RecordWebhookFailure(ctx, f, func(tx *store.Tx) error {
			if _, err := tx.SettingOrInit(ctx, "retry-"+d.ID, "written"); err != nil {
				return err
			}
			return boom
		})
		testserver.Must(t, errors.Is(err, boom), "failed retry: got %v, want boom", err)
		got, err := st.Delivery(ctx, d.ID)
		testserver.Must(t, err == nil && got.Attempts == 0 && got.Status == carteiro.DeliveryPending, "after a failed retry: %v %+v", err, got)
		hook, err := st.WebhookByID(ctx, w.ID)
		testserver.Must(t, err == nil && hook.FailedAttempts == 0, "after a failed retry: %v, %d failed attempts", err, hook.FailedAttempts)
		v, err := st.Setting(ctx, "retry-"+d.ID)
		testserver.Must(t, errors.Is(err, store.ErrNotFound), "after a failed retry its write was kept: %q %v", v, err)

		err = st.RecordWebhookFailure(ctx, f, func(tx *store.Tx) error {
			_, err := tx.SettingOrInit(ctx, "retry-"+d.ID, "written")
			return err
		})
		testserver.Must(t, err == nil, "record failure: %v", err)
		got, err = st.Delivery(ctx, d.ID)
		testserver.Must(t, err == nil && got.Attempts == 1 && got.Status == carteiro.DeliveryFailed && got.ResponseStatus == 503,
			"after the failure: %v %+v", err, got)
		hook, err = st.WebhookByID(ctx, w.ID)
		testserver.Must(t, err == nil && hook.FailedAttempts == 1 && hook.FailingSince != nil && hook.FailingSince.Equal(stored(at)),
			"after the failure: %v, %d failed attempts since %v", err, hook.FailedAttempts, hook.FailingSince)
		v, err = st.Setting(ctx, "retry-"+d.ID)
		testserver.Must(t, err == nil && v == "written", "the retry's write: %q %v", v, err)

		f.Gone = true
		testserver.Must(t, st.RecordWebhookFailure(ctx, f, nil) == nil, "record a 410")
		hook, err = st.WebhookByID(ctx, w.ID)
		testserver.Must(t, err == nil && hook.Status == carteiro.WebhookDisabled, "after a 410: %v, status %s", err, hook.Status)
	})
}
