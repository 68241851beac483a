package store_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

// TestProgressOfManyAttemptsInOneStatement: the outcomes of attempts that
// share a transaction are written with one UPDATE per table. Each email
// and recipient gets its own values, NULLs included; a row given twice
// takes its last values; first-time timestamps and counters already
// stored are not undone by a stale copy; rows not named are untouched.
func TestProgressOfManyAttemptsInOneStatement(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "Progress")
		const n = 1200 // 17 values a row: more than one statement's worth
		emails := make([]*carteiro.Email, n+1)
		for i := range emails {
			emails[i] = &carteiro.Email{ID: uuid.NewString(), OrgID: org.ID, Mode: carteiro.ModeLive, From: carteiro.Address{Email: "news@shop.example"},
				To:      []carteiro.Address{{Email: fmt.Sprintf("a%d@x.example", i)}, {Email: fmt.Sprintf("b%d@y.example", i)}},
				Subject: "s", Status: carteiro.EmailQueued, CreatedAt: baseTime}
		}
		err := st.InTx(ctx, func(tx *store.Tx) error { return tx.InsertEmails(ctx, emails) })
		testserver.Must(t, err == nil, "insert: %v", err)
		// Another path (an open) wrote the first email's counters first.
		openedEarlier := baseTime.Add(time.Minute)
		first := *emails[0]
		first.OpenedAt, first.OpenCount = &openedEarlier, 3
		testserver.Must(t, st.UpdateEmailProgress(ctx, &first, nil) == nil, "open")

		sent := baseTime.Add(time.Hour)
		attemptAt := baseTime.Add(30 * time.Minute)
		var progress []store.EmailProgress
		var recipients []*carteiro.Recipient
		for i, e := range emails[:n] {
			c := *e
			c.Status, c.Attempts, c.MessageID = carteiro.EmailSent, 1, fmt.Sprintf("m%d@shop.example", i)
			c.SentAt = &sent
			if i%2 == 1 {
				c.LastError = "451 4.7.1 try later"
			}
			progress = append(progress, store.EmailProgress{Email: &c, FirstAttemptAt: &attemptAt})
			recipients = append(recipients,
				&carteiro.Recipient{EmailID: e.ID, Position: 0, Address: e.To[0].Email, Status: carteiro.RecipientSent, LastCode: 250,
					LastEnhanced: "2.0.0", LastMessage: "ok", UpdatedAt: sent},
				&carteiro.Recipient{EmailID: e.ID, Position: 1, Address: e.To[1].Email, Status: carteiro.RecipientDeferred, UpdatedAt: sent})
		}
		// The first email again, later in the batch: its last values win.
		again := *progress[0].Email
		again.Attempts = 2
		progress = append(progress, store.EmailProgress{Email: &again})
		err = st.InTx(ctx, func(tx *store.Tx) error {
			if err := tx.UpdateRecipients(ctx, recipients); err != nil {
				return err
			}
			return tx.UpdateEmailsProgress(ctx, progress)
		})
		testserver.Must(t, err == nil, "update: %v", err)

		for _, i := range []int{0, 1, n - 1} {
			got, err := st.Email(ctx, org.ID, carteiro.ModeLive, emails[i].ID)
			testserver.Must(t, err == nil, "read %d: %v", i, err)
			testserver.Must(t, got.Status == carteiro.EmailSent && got.MessageID == fmt.Sprintf("m%d@shop.example", i), "email %d: %+v", i, got)
			sameTimePtr(t, fmt.Sprintf("email %d sentAt", i), got.SentAt, &sent)
			wantErr := ""
			if i%2 == 1 {
				wantErr = "451 4.7.1 try later"
			}
			testserver.Must(t, got.LastError == wantErr, "email %d lastError %q, want %q", i, got.LastError, wantErr)
			rs, err := st.Recipients(ctx, emails[i].ID)
			testserver.Must(t, err == nil && len(rs) == 2, "recipients %d: %v %v", i, rs, err)
			testserver.Must(t, rs[0].Status == carteiro.RecipientSent && rs[0].LastCode == 250 && rs[0].LastEnhanced == "2.0.0" && rs[0].LastMessage == "ok",
				"email %d first recipient %+v", i, rs[0])
			testserver.Must(t, rs[1].Status == carteiro.RecipientDeferred && rs[1].LastCode == 0 && rs[1].LastEnhanced == "" && rs[1].LastMessage == "",
				"email %d second recipient %+v", i, rs[1])
		}
		got, err := st.Email(ctx, org.ID, carteiro.ModeLive, emails[0].ID)
		testserver.Must(t, err == nil && got.Attempts == 2 && got.OpenCount == 3, "first email: attempts %d opens %d, want 2 and 3 (%v)", got.Attempts, got.OpenCount, err)
		sameTimePtr(t, "first email openedAt", got.OpenedAt, &openedEarlier)
		first2, err := st.FirstAttemptAt(ctx, emails[1].ID)
		testserver.Must(t, err == nil, "first attempt: %v", err)
		sameTimePtr(t, "first attempt", first2, &attemptAt)
		untouched, err := st.Email(ctx, org.ID, carteiro.ModeLive, emails[n].ID)
		testserver.Must(t, err == nil && untouched.Status == carteiro.EmailQueued && untouched.SentAt == nil, "email not named: %+v %v", untouched, err)
	})
}
