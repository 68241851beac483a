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

// TestAcceptWritesOnlyWhatWasDecided runs accepts as the requests of one
// shared transaction: the emails that pass the store's checks are written
// and handed to delivery together, once; a request whose key is live is
// answered with its record (D22) and one past its domain's warmup quota
// (D34) is refused, and neither leaves anything behind.
func TestAcceptWritesOnlyWhatWasDecided(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "Accept")
		later := baseTime.Add(time.Hour)
		day := baseTime.Format(time.DateOnly)
		charge := &store.WarmupCharge{DomainID: "dom-accept", Day: day, Quota: 2}
		key := func(k string) *store.IdempotencyRecord {
			return &store.IdempotencyRecord{OrgID: org.ID, Mode: carteiro.ModeLive, Endpoint: "POST /emails", Key: k,
				RequestHash: "h-" + k, ResponseStatus: 202, ResponseBody: `{"id":"` + k + `"}`, CreatedAt: baseTime}
		}
		accepted := func(scheduled *time.Time, idem *store.IdempotencyRecord) store.AcceptedEmail {
			e, ev := acceptedEmail(org.ID, scheduled)
			return store.AcceptedEmail{Email: e, Event: ev, Idempotency: idem, ReplaySince: baseTime.Add(-time.Hour), Warmup: charge}
		}
		// Before: one email counted for the day, and a live key.
		earlier := accepted(nil, key("k-live"))
		res, err := st.Accept(ctx, store.AcceptOne, &deliveryRecorder{}, []store.AcceptedEmail{earlier})
		testserver.Must(t, err == nil && res[0].Written(), "earlier accept: %v %+v", err, res)

		jobs := &deliveryRecorder{}
		now, replay := accepted(nil, key("k-now")), accepted(nil, key("k-live"))
		overQuota, scheduled := accepted(nil, key("k-over")), accepted(&later, nil)
		scheduled.Warmup = nil
		reqs := [][]store.AcceptedEmail{{now}, {replay}, {overQuota}, {scheduled}}
		results := make([][]store.AcceptResult, len(reqs))
		works := make([]func(tx *store.Tx) error, len(reqs))
		for i := range reqs {
			works[i] = store.AcceptWork(ctx, jobs, reqs[i], &results[i])
		}
		errs, alone := st.SharedRun(ctx, works...)
		testserver.Must(t, errs[0] == nil && errs[3] == nil && errors.Is(errs[1], store.ErrNothingWritten) && errors.Is(errs[2], store.ErrNothingWritten),
			"errors %v", errs)
		testserver.Must(t, !slices.Contains(alone, true), "a request ran alone: %v", alone)
		testserver.Must(t, results[0][0].Written() && results[3][0].Written(), "written: %+v %+v", results[0], results[3])
		testserver.Must(t, results[1][0].Replayed != nil && results[1][0].Replayed.ResponseBody == `{"id":"k-live"}`, "replay: %+v", results[1])
		testserver.Must(t, results[2][0].OverQuota, "over quota: %+v", results[2])

		want := [][]string{{now.Email.ID, scheduled.Email.ID}}
		testserver.Must(t, fmt.Sprint(jobs.calls) == fmt.Sprint(want), "delivery jobs for %v, want %v", jobs.calls, want)
		for name, c := range map[string]struct {
			a      store.AcceptedEmail
			stored bool
		}{"now": {now, true}, "replay": {replay, false}, "over quota": {overQuota, false}, "scheduled": {scheduled, true}} {
			_, err := st.Email(ctx, org.ID, carteiro.ModeLive, c.a.Email.ID)
			testserver.Must(t, (err == nil) == c.stored, "email %s stored: %v, want %v", name, err, c.stored)
			evs, err := st.EmailEvents(ctx, c.a.Email.ID)
			testserver.Must(t, err == nil && (len(evs) == 1) == c.stored, "email %s events %v %v", name, evs, err)
		}
		_, err = st.Idempotency(ctx, org.ID, carteiro.ModeLive, "POST /emails", "k-over")
		testserver.Must(t, errors.Is(err, store.ErrNotFound), "the refused email's key was recorded: %v", err)
		sent, err := st.WarmupSent(ctx, "dom-accept", day)
		testserver.Must(t, err == nil && sent == 2, "warmup count %d %v, want 2 (quota)", sent, err)
	})
}

// TestAcceptForgetsAnExpiredKey: a key recorded before ReplaySince is
// forgotten and the email accepted anew with the new answer recorded; a
// live one is replayed with the first answer (D22).
func TestAcceptForgetsAnExpiredKey(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "Expired")
		accept := func(body string, since time.Time) (store.AcceptResult, *carteiro.Email) {
			e, ev := acceptedEmail(org.ID, nil)
			rec := &store.IdempotencyRecord{OrgID: org.ID, Mode: carteiro.ModeLive, Endpoint: "POST /emails", Key: "k",
				RequestHash: "h", ResponseStatus: 202, ResponseBody: body, CreatedAt: baseTime}
			res, err := st.Accept(ctx, store.AcceptBatch, &deliveryRecorder{}, []store.AcceptedEmail{{Email: e, Event: ev, Idempotency: rec, ReplaySince: since}})
			testserver.Must(t, err == nil, "accept: %v", err)
			return res[0], e
		}
		first, _ := accept("first", baseTime.Add(-time.Hour))
		testserver.Must(t, first.Written(), "first: %+v", first)
		again, _ := accept("again", baseTime.Add(-time.Hour))
		testserver.Must(t, again.Replayed != nil && again.Replayed.ResponseBody == "first", "live key: %+v", again)
		anew, e := accept("anew", baseTime)
		testserver.Must(t, anew.Written(), "expired key: %+v", anew)
		_, err := st.Email(ctx, org.ID, carteiro.ModeLive, e.ID)
		testserver.Must(t, err == nil, "email accepted anew not stored: %v", err)
		rec, err := st.Idempotency(ctx, org.ID, carteiro.ModeLive, "POST /emails", "k")
		testserver.Must(t, err == nil && rec.ResponseBody == "anew", "record %+v %v, want the new answer", rec, err)
	})
}
