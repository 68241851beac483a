package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

// eventsRecorder stands for the use cases' event recording: it records
// which emails' events each flush hands over.
type eventsRecorder struct{ emails []string }

func (r *eventsRecorder) RecordEventsOf(_ context.Context, _ *store.Tx, emails []store.EmailEvents) error {
	for _, e := range emails {
		r.emails = append(r.emails, e.Email.ID)
	}
	return nil
}

// TestOutcomeJoinsOnlyAfterItsOwnWrites runs outcomes as the callers of one
// shared transaction: an outcome whose own statements (a suppression, a
// retry's job) failed writes nothing, and the others are written together.
func TestOutcomeJoinsOnlyAfterItsOwnWrites(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "Outcomes")
		var emails []*carteiro.Email
		for range 2 {
			e, ev := acceptedEmail(org.ID, nil)
			if err := st.InTx(ctx, func(tx *store.Tx) error {
				if err := tx.InsertEmails(ctx, []*carteiro.Email{e}); err != nil {
					return err
				}
				return tx.InsertEvents(ctx, []*carteiro.EmailEvent{ev})
			}); err != nil {
				t.Fatal(err)
			}
			emails = append(emails, e)
		}
		outcome := func(e *carteiro.Email) store.Outcome {
			d := *e
			d.Status = carteiro.EmailDelivered
			d.DeliveredAt = &baseTime
			return store.Outcome{Email: &d, Events: []*carteiro.EmailEvent{{ID: e.ID + "-d", EmailID: e.ID, Type: carteiro.EventDelivered, Timestamp: baseTime}}}
		}
		events := &eventsRecorder{}
		boom := errors.New("boom")
		errs, _ := st.SharedRun(ctx,
			store.OutcomeWork(outcome(emails[0]), events, nil),
			store.OutcomeWork(outcome(emails[1]), events, func(tx *store.Tx) error {
				if _, err := tx.SettingOrInit(ctx, "own-write", "v"); err != nil {
					return err
				}
				return boom
			}))
		testserver.Must(t, errs[0] == nil && errors.Is(errs[1], boom), "errors %v", errs)
		testserver.Must(t, fmt.Sprint(events.emails) == fmt.Sprint([]string{emails[0].ID}), "events recorded for %v", events.emails)
		for i, want := range []carteiro.EmailStatus{carteiro.EmailDelivered, carteiro.EmailQueued} {
			got, err := st.Email(ctx, org.ID, carteiro.ModeLive, emails[i].ID)
			testserver.Must(t, err == nil && got.Status == want, "email %d: %v %v, want %s", i, got.Status, err, want)
		}
		_, err := st.Setting(ctx, "own-write")
		testserver.Must(t, err != nil, "the failed caller's own write stayed")
	})
}
