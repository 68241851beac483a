package store_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

// TestInsertEmailsInOneBatch writes more emails than one multi-row
// statement holds (as a broadcast step does, with tags and several
// recipients each) and their first events, and reads every row back.
func TestInsertEmailsInOneBatch(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		org := createOrg(t, st, "Batch")
		const n = 800 // 39 values a row: more than one statement's worth
		emails := make([]*carteiro.Email, n)
		events := make([]*carteiro.EmailEvent, n)
		for i := range emails {
			subject := fmt.Sprintf("s%d", i)
			emails[i] = &carteiro.Email{ID: uuid.NewString(), OrgID: org.ID, Mode: carteiro.ModeLive,
				From:    carteiro.Address{Email: "News@Shop.example"},
				To:      []carteiro.Address{{Email: fmt.Sprintf("a%d@x.example", i)}, {Email: fmt.Sprintf("B%d@y.example", i)}},
				Tags:    []carteiro.Tag{{Name: "campaign", Value: "nov"}},
				Subject: subject, Status: carteiro.EmailQueued, CreatedAt: baseTime}
			events[i] = &carteiro.EmailEvent{ID: uuid.NewString(), EmailID: emails[i].ID, Type: carteiro.EventQueued, Timestamp: baseTime}
		}
		err := st.InTx(testContext(t), func(tx *store.Tx) error {
			if err := tx.InsertEmails(testContext(t), emails); err != nil {
				return err
			}
			return tx.InsertEvents(testContext(t), events)
		})
		if err != nil {
			t.Fatal(err)
		}
		count := func(query string, args ...any) int {
			var c int
			rawQuery(t, st, query, args, func(scan func(dest ...any) error) error { return scan(&c) })
			return c
		}
		testserver.Must(t, count(`SELECT COUNT(*) FROM emails WHERE org_id = ?`, org.ID) == n, "emails")
		testserver.Must(t, count(`SELECT COUNT(*) FROM email_recipients WHERE position = 1`) == n, "second recipients")
		testserver.Must(t, count(`SELECT COUNT(*) FROM email_tags WHERE org_id = ? AND name = 'campaign'`, org.ID) == n, "tags")
		testserver.Must(t, count(`SELECT COUNT(*) FROM email_events WHERE type = 'queued'`) == n, "events")
		last := emails[n-1]
		got, err := st.Email(testContext(t), org.ID, carteiro.ModeLive, last.ID)
		testserver.Must(t, err == nil && got.Subject == "s799" && len(got.To) == 2 && got.To[1].Email == "B799@y.example" &&
			got.From.Email == "News@Shop.example", "read back %+v %v", got, err)
		evs, err := st.EmailEvents(testContext(t), last.ID)
		testserver.Must(t, err == nil && len(evs) == 1 && evs[0].Type == carteiro.EventQueued, "events %v %v", evs, err)
	})
}

// queuedThenCancelled stores two queued emails of orgID and cancels the
// second, as a broadcast's cancel does (D43).
func queuedThenCancelled(t *testing.T, st *store.Store, orgID string, sandbox bool) []*carteiro.Email {
	t.Helper()
	ctx := testContext(t)
	emails := make([]*carteiro.Email, 2)
	for i := range emails {
		emails[i] = &carteiro.Email{ID: uuid.NewString(), OrgID: orgID, Mode: carteiro.ModeLive, Sandbox: sandbox, From: carteiro.Address{Email: "news@shop.example"},
			To: []carteiro.Address{{Email: fmt.Sprintf("c%d@x.example", i)}}, Subject: "s", Status: carteiro.EmailQueued, CreatedAt: baseTime}
	}
	err := st.InTx(ctx, func(tx *store.Tx) error { return tx.InsertEmails(ctx, emails) })
	testserver.Must(t, err == nil, "insert: %v", err)
	ok, err := st.SetEmailStatusIf(ctx, emails[1].ID, carteiro.EmailQueued, carteiro.EmailCancelled)
	testserver.Must(t, ok && err == nil, "cancel: %v %v", ok, err)
	return emails
}

// TestBeginAttemptSkipsCancelledEmail: an attempt starts only on an email
// still queued or processing; one whose broadcast's cancel committed first
// stays cancelled, with no processing event (D43).
func TestBeginAttemptSkipsCancelledEmail(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "Cancel")
		emails := queuedThenCancelled(t, st, org.ID, false)

		for i, want := range []bool{true, false} {
			e := emails[i]
			e.Attempts, e.Status, e.MessageID = 1, carteiro.EmailProcessing, e.ID+"@shop.example"
			ev := &carteiro.EmailEvent{ID: uuid.NewString(), EmailID: e.ID, Type: carteiro.EventProcessing, Timestamp: baseTime}
			started, err := st.BeginAttempt(ctx, e, baseTime, ev)
			testserver.Must(t, err == nil && started == want, "email %d: started %v, want %v (%v)", i, started, want, err)
			got, err := st.Email(ctx, org.ID, carteiro.ModeLive, e.ID)
			evs, evErr := st.EmailEvents(ctx, e.ID)
			wantStatus, wantEvents := carteiro.EmailProcessing, 1
			if !want {
				wantStatus, wantEvents = carteiro.EmailCancelled, 0
			}
			testserver.Must(t, err == nil && evErr == nil && got.Status == wantStatus && len(evs) == wantEvents,
				"email %d: status %s, %d events (%v %v)", i, got.Status, len(evs), err, evErr)
		}
	})
}

// TestClaimAttemptInsideTransaction: a simulated attempt claims its email
// in the transaction that records it; on an email a cancel reached first
// the claim reports false and changes nothing, on a queued one it sets the
// attempt's fields (D43).
func TestClaimAttemptInsideTransaction(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "Claim")
		emails := queuedThenCancelled(t, st, org.ID, true)

		for i, want := range []bool{true, false} {
			e := emails[i]
			e.Attempts, e.Status, e.MessageID = 1, carteiro.EmailProcessing, e.ID+"@shop.example"
			var claimed bool
			err := st.InSharedOnSQLite(ctx, func(tx *store.Tx) error {
				var err error
				claimed, err = tx.ClaimAttempt(ctx, e, baseTime)
				return err
			})
			testserver.Must(t, err == nil && claimed == want, "email %d: claimed %v, want %v (%v)", i, claimed, want, err)
			got, err := st.Email(ctx, org.ID, carteiro.ModeLive, e.ID)
			testserver.Must(t, err == nil, "read %d: %v", i, err)
			if want {
				testserver.Must(t, got.Status == carteiro.EmailProcessing && got.Attempts == 1 && got.MessageID == e.MessageID,
					"email %d: status %s, attempts %d, message id %q", i, got.Status, got.Attempts, got.MessageID)
			} else {
				testserver.Must(t, got.Status == carteiro.EmailCancelled && got.Attempts == 0 && got.MessageID == "",
					"email %d: status %s, attempts %d, message id %q", i, got.Status, got.Attempts, got.MessageID)
			}
		}
	})
}

// TestClaimEmailsSkipsCancelled: simulated attempts sharing a transaction
// claim their emails with one statement; an email a cancel reached first
// is not claimed and keeps its status (D43); one named twice counts once.
func TestClaimEmailsSkipsCancelled(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "Claims")
		emails := queuedThenCancelled(t, st, org.ID, true)
		var claimed map[string]bool
		err := st.InTx(ctx, func(tx *store.Tx) error {
			var err error
			claimed, err = tx.ClaimEmails(ctx, []string{emails[1].ID, emails[0].ID, emails[0].ID})
			return err
		})
		testserver.Must(t, err == nil && len(claimed) == 1 && claimed[emails[0].ID], "claimed %v, want only the queued email (%v)", claimed, err)
		for i, want := range []carteiro.EmailStatus{carteiro.EmailProcessing, carteiro.EmailCancelled} {
			got, err := st.Email(ctx, org.ID, carteiro.ModeLive, emails[i].ID)
			testserver.Must(t, err == nil && got.Status == want, "email %d: %v %v, want %s", i, got, err, want)
		}
	})
}

// The delivery worker's first read brings the email, its recipients and
// its live sending domain; a domain deleted since the accept is nil, and
// so is the domain of an email sent from a verified single sender.
func TestEmailForDeliveryReadsItsDomain(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "Delivery")
		d := createDomain(t, st, org.ID, "shop.example", baseTime)
		signed := &carteiro.Email{ID: uuid.NewString(), OrgID: org.ID, Mode: carteiro.ModeLive, DomainID: d.ID, From: carteiro.Address{Email: "news@shop.example"},
			To: []carteiro.Address{{Email: "a@x.example"}, {Email: "b@x.example"}}, Subject: "s", Status: carteiro.EmailQueued, CreatedAt: baseTime}
		single := &carteiro.Email{ID: uuid.NewString(), OrgID: org.ID, Mode: carteiro.ModeLive, From: carteiro.Address{Email: "me@gmail.example"},
			To: []carteiro.Address{{Email: "c@x.example"}}, Subject: "s", Status: carteiro.EmailQueued, CreatedAt: baseTime}
		err := st.InTx(ctx, func(tx *store.Tx) error { return tx.InsertEmails(ctx, []*carteiro.Email{signed, single}) })
		testserver.Must(t, err == nil, "insert: %v", err)

		e, rs, got, err := st.EmailForDelivery(ctx, signed.ID)
		testserver.Must(t, err == nil && e.ID == signed.ID && len(rs) == 2 && rs[1].Address == "b@x.example", "read: %+v %v %v", e, rs, err)
		testserver.Must(t, got != nil && got.ID == d.ID && got.Name == "shop.example" && got.DKIMPrivateKey == d.DKIMPrivateKey && got.DKIMSelector == d.DKIMSelector,
			"sending domain = %+v, want %+v", got, d)

		_, rs, got, err = st.EmailForDelivery(ctx, single.ID)
		testserver.Must(t, err == nil && len(rs) == 1 && got == nil, "single sender: domain %+v, %d recipients, %v", got, len(rs), err)

		testserver.Must(t, st.SoftDeleteDomain(ctx, org.ID, d.ID, baseTime.Add(time.Hour)) == nil, "delete domain")
		e, _, got, err = st.EmailForDelivery(ctx, signed.ID)
		testserver.Must(t, err == nil && e.ID == signed.ID && got == nil, "deleted domain: %+v, %v", got, err)

		_, _, _, err = st.EmailForDelivery(ctx, uuid.NewString())
		testserver.Must(t, errors.Is(err, store.ErrNotFound), "unknown email: %v, want ErrNotFound", err)
	})
}
