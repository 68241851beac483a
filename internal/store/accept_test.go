package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

// deliveryRecorder stands for the queue: it records the emails each
// transaction hands to delivery.
type deliveryRecorder struct{ calls [][]string }

func (r *deliveryRecorder) InsertDeliveries(_ context.Context, _ *store.Tx, emails []*carteiro.Email) error {
	ids := make([]string, len(emails))
	for i, e := range emails {
		ids[i] = e.ID
	}
	r.calls = append(r.calls, ids)
	return nil
}

func acceptedEmail(orgID string, scheduled *time.Time) (*carteiro.Email, *carteiro.EmailEvent) {
	e := &carteiro.Email{ID: uuid.NewString(), OrgID: orgID, Mode: carteiro.ModeLive,
		From: carteiro.Address{Email: "a@shop.example"}, To: []carteiro.Address{{Email: "b@x.example"}},
		Subject: "s", Status: carteiro.EmailQueued, ScheduledAt: scheduled, CreatedAt: baseTime}
	return e, &carteiro.EmailEvent{ID: uuid.NewString(), EmailID: e.ID, Type: carteiro.EventQueued, Timestamp: baseTime}
}

// TestAcceptWritesOnlyWhatWasDecided runs accepts as the callers of one
// shared transaction: the emails of those whose decision succeeded are
// written and handed to delivery together, once; a caller whose decision
// failed after building its rows leaves neither its rows nor its own
// writes behind.
func TestAcceptWritesOnlyWhatWasDecided(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "Accept")
		later := baseTime.Add(time.Hour)
		jobs := &deliveryRecorder{}
		boom := errors.New("boom")
		emails := map[string]*carteiro.Email{}
		decide := func(key string, scheduled *time.Time, fail error) func(tx *store.Tx) (store.Acceptance, error) {
			e, ev := acceptedEmail(org.ID, scheduled)
			emails[key] = e
			return func(tx *store.Tx) (store.Acceptance, error) {
				if _, err := tx.SettingOrInit(ctx, "accept-"+key, "v"); err != nil {
					return store.Acceptance{}, err
				}
				return store.Acceptance{Emails: []*carteiro.Email{e}, Events: []*carteiro.EmailEvent{ev}}, fail
			}
		}
		errs, alone := st.SharedRun(ctx,
			store.AcceptWork(jobs, decide("now", nil, nil)),
			store.AcceptWork(jobs, decide("failed", nil, boom)),
			store.AcceptWork(jobs, decide("scheduled", &later, nil)))
		testserver.Must(t, errs[0] == nil && errors.Is(errs[1], boom) && errs[2] == nil, "errors %v", errs)
		testserver.Must(t, !slices.Contains(alone, true), "a caller ran alone: %v", alone)
		want := [][]string{{emails["now"].ID, emails["scheduled"].ID}}
		testserver.Must(t, fmt.Sprint(jobs.calls) == fmt.Sprint(want), "delivery jobs for %v, want %v", jobs.calls, want)
		for key, wantStored := range map[string]bool{"now": true, "failed": false, "scheduled": true} {
			_, err := st.Email(ctx, org.ID, carteiro.ModeLive, emails[key].ID)
			testserver.Must(t, (err == nil) == wantStored, "email %s stored: %v, want %v", key, err, wantStored)
			evs, err := st.EmailEvents(ctx, emails[key].ID)
			testserver.Must(t, err == nil && (len(evs) == 1) == wantStored, "email %s events %v %v", key, evs, err)
			_, err = st.Setting(ctx, "accept-"+key)
			testserver.Must(t, (err == nil) == wantStored, "setting of %s: %v, want stored %v", key, err, wantStored)
		}
	})
}

// TestAcceptDecidesAgainAfterAConflict: a decision that meets a conflict
// (an idempotency key a concurrent request committed first) runs again in
// a transaction of its own, where it can see the other's rows (D22).
func TestAcceptDecidesAgainAfterAConflict(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "Conflict")
		for _, kind := range []store.AcceptKind{store.AcceptOne, store.AcceptBatch} {
			jobs := &deliveryRecorder{}
			e, ev := acceptedEmail(org.ID, nil)
			runs := 0
			err := st.Accept(ctx, kind, jobs, func(tx *store.Tx) (store.Acceptance, error) {
				if runs++; runs == 1 {
					return store.Acceptance{}, fmt.Errorf("insert idempotency record: %w", store.ErrConflict)
				}
				return store.Acceptance{Emails: []*carteiro.Email{e}, Events: []*carteiro.EmailEvent{ev}}, nil
			})
			testserver.Must(t, err == nil && runs == 2, "kind %d: err %v after %d runs", kind, err, runs)
			testserver.Must(t, fmt.Sprint(jobs.calls) == fmt.Sprint([][]string{{e.ID}}), "kind %d: delivery jobs %v", kind, jobs.calls)
			_, err = st.Email(ctx, org.ID, carteiro.ModeLive, e.ID)
			testserver.Must(t, err == nil, "kind %d: email not stored: %v", kind, err)
		}
	})
}
