package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

func createWebhook(t *testing.T, st *store.Store) *carteiro.Webhook {
	t.Helper()
	org := createOrg(t, st, "hooks")
	w := &carteiro.Webhook{ID: uuid.NewString(), OrgID: org.ID, URL: "https://hooks.example/in", Events: []string{"email.sent"},
		Status: carteiro.WebhookActive, CreatedAt: baseTime, UpdatedAt: baseTime}
	if err := st.CreateWebhook(testContext(t), w); err != nil {
		t.Fatal(err)
	}
	return w
}

// D49, D50: failures count from the first of a streak, a success ends the
// streak, and the next failure starts a new one.
func TestWebhookFailureStreaks(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		w := createWebhook(t, st)
		const disableAfter, minAttempts = 5 * 24 * time.Hour, 20
		record := func(success bool, at time.Time) *carteiro.Webhook {
			t.Helper()
			err := st.CountWebhookFailure(ctx, w.ID, false, at, disableAfter, minAttempts)
			if success {
				err = st.EndWebhookStreaks(ctx, []string{w.ID})
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := st.WebhookByID(ctx, w.ID)
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		t0 := baseTime.Add(time.Hour)
		record(false, t0)
		got := record(false, t0.Add(time.Hour))
		if got.FailedAttempts != 2 || got.FailingSince == nil || !got.FailingSince.Equal(stored(t0)) {
			t.Fatalf("after two failures: %d attempts failing since %v, want 2 since %v", got.FailedAttempts, got.FailingSince, stored(t0))
		}
		for range 2 { // the second success has nothing left to clear
			if got = record(true, t0.Add(2*time.Hour)); got.FailedAttempts != 0 || got.FailingSince != nil {
				t.Fatalf("after a success: %d attempts failing since %v, want a clear record", got.FailedAttempts, got.FailingSince)
			}
		}
		t1 := t0.Add(6 * 24 * time.Hour)
		for i := range minAttempts {
			got = record(false, t1.Add(time.Duration(i)*time.Minute))
		}
		if got.Status != carteiro.WebhookActive || !got.FailingSince.Equal(stored(t1)) || got.FailedAttempts != minAttempts {
			t.Fatalf("a new streak of %d failures within a day: %+v, want active, failing since %v", minAttempts, got, stored(t1))
		}
	})
}

// On PostgreSQL a delivery whose success has nothing to clear does not lock
// the webhook's row: other deliveries to the same webhook commit while its
// transaction is still open, instead of one after another.
func TestWebhookSuccessesDoNotWaitForEachOther(t *testing.T) {
	t.Parallel()
	st := openStore(t, testserver.Postgres)
	ctx := testContext(t)
	w := createWebhook(t, st)
	commitFirst := openTx(t, st, func(tx *store.Tx) error {
		return tx.EndWebhookStreaks(ctx, []string{w.ID})
	})
	second, cancel := context.WithTimeout(ctx, 2*time.Second)
	err := st.InTx(second, func(tx *store.Tx) error {
		return tx.EndWebhookStreaks(second, []string{w.ID})
	})
	cancel()
	firstErr := commitFirst()
	if err != nil {
		t.Fatalf("a second success on the same webhook while the first's transaction was open: %v", err)
	}
	if err := firstErr; err != nil {
		t.Fatalf("first transaction: %v", err)
	}
}
