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

// TestChunkBoundsSplitAudienceInOrder: the fan-out's chunks cover every
// contact after the cursor once, in walking order, including contacts that
// share a creation time (an import writes hundreds in one microsecond).
func TestChunkBoundsSplitAudienceInOrder(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "acme")
		aud := createAudience(t, st, org, "news")
		empty, total, err := st.ChunkBounds(ctx, aud.ID, store.ContactKey{}, 10)
		testserver.Must(t, err == nil && len(empty) == 0 && total == 0, "empty audience: %v %d %v", empty, total, err)

		contacts := make([]*carteiro.Contact, 25)
		for i := range contacts {
			// Five creation times, five contacts each.
			contacts[i] = &carteiro.Contact{ID: uuid.NewString(), AudienceID: aud.ID, OrgID: org.ID, Email: fmt.Sprintf("c%02d@example.com", i),
				CreatedAt: baseTime.Add(time.Duration(i/5) * time.Microsecond)}
		}
		err = st.InTx(ctx, func(tx *store.Tx) error {
			_, err := tx.InsertContactsSkippingDuplicates(ctx, aud.ID, contacts)
			return err
		})
		testserver.Must(t, err == nil, "insert contacts: %v", err)

		bounds, total, err := st.ChunkBounds(ctx, aud.ID, store.ContactKey{}, 10)
		testserver.Must(t, err == nil && len(bounds) == 3 && total == 25, "bounds %v total %d: %v", bounds, total, err)
		seen := map[string]int{}
		var walked []*carteiro.Contact
		after := store.ContactKey{}
		for i, upto := range bounds {
			got, err := st.ContactsInRange(ctx, aud.ID, after, upto)
			testserver.Must(t, err == nil, "chunk %d: %v", i, err)
			testserver.Must(t, len(got) == []int{10, 10, 5}[i], "chunk %d holds %d contacts", i, len(got))
			testserver.Must(t, got[len(got)-1].ID == upto.ID, "chunk %d ends at %s, not at its bound %s", i, got[len(got)-1].ID, upto.ID)
			for _, c := range got {
				seen[c.ID]++
			}
			walked = append(walked, got...)
			after = upto
		}
		testserver.Must(t, len(seen) == 25, "the chunks cover %d of 25 contacts", len(seen))
		for i := 1; i < len(walked); i++ {
			p, c := walked[i-1], walked[i]
			inOrder := p.CreatedAt.Before(c.CreatedAt) || (p.CreatedAt.Equal(c.CreatedAt) && p.ID < c.ID)
			testserver.Must(t, inOrder, "contact %d (%s %s) walked after %s %s", i, c.CreatedAt, c.ID, p.CreatedAt, p.ID)
		}

		// From a cursor in the middle of a creation time: the rest only.
		rest, total, err := st.ChunkBounds(ctx, aud.ID, bounds[0], 10)
		testserver.Must(t, err == nil && len(rest) == 2 && total == 15 && rest[0] == bounds[1] && rest[1] == bounds[2],
			"after the first chunk: %v %d %v", rest, total, err)
	})
}

// TestBroadcastProgressStopsAtCancel: a chunk adds its counters only while
// its broadcast is sending; once it is cancelled the chunk learns it and
// its work is rolled back. The last chunk brings the pending count to 0.
func TestBroadcastProgressStopsAtCancel(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "acme")
		bc := &carteiro.Broadcast{ID: uuid.NewString(), OrgID: org.ID, Mode: carteiro.ModeLive, AudienceID: uuid.NewString(), Subject: "s",
			From: carteiro.Address{Email: "news@acme.example"}, Status: carteiro.BroadcastDraft, CreatedAt: baseTime, UpdatedAt: baseTime}
		if err := st.CreateBroadcast(ctx, bc); err != nil {
			t.Fatalf("create broadcast: %v", err)
		}
		bc.Status, bc.ChunksPending, bc.RecipientsTotal = carteiro.BroadcastSending, 2, 7
		ok, err := st.SetBroadcastStatus(ctx, bc, carteiro.BroadcastDraft)
		testserver.Must(t, ok && err == nil, "start: %v %v", ok, err)

		pending, err := st.AddBroadcastProgress(ctx, bc.ID, store.BroadcastProgress{Queued: 3, Failed: 1, ChunkDone: true, At: baseTime})
		testserver.Must(t, err == nil && pending == 1, "first chunk: pending %d, %v", pending, err)
		pending, err = st.AddBroadcastProgress(ctx, bc.ID, store.BroadcastProgress{Queued: 2, At: baseTime})
		testserver.Must(t, err == nil && pending == 1, "a paused chunk is still pending: %d, %v", pending, err)
		got, err := st.BroadcastByID(ctx, bc.ID)
		testserver.Must(t, err == nil && got.RecipientsQueued == 5 && got.RecipientsFailed == 1 && got.ChunksPending == 1,
			"counters: %+v %v", got, err)

		ok, err = st.CancelBroadcast(ctx, bc.ID, baseTime)
		testserver.Must(t, ok && err == nil, "cancel: %v %v", ok, err)
		_, err = st.AddBroadcastProgress(ctx, bc.ID, store.BroadcastProgress{Queued: 2, ChunkDone: true, At: baseTime})
		testserver.Must(t, errors.Is(err, store.ErrNotFound), "progress after the cancel: %v", err)
		testserver.Must(t, st.FinishBroadcast(ctx, bc.ID, baseTime) == nil, "finish")
		got, err = st.BroadcastByID(ctx, bc.ID)
		testserver.Must(t, err == nil && got.Status == carteiro.BroadcastCancelled && got.RecipientsQueued == 5 && got.SentAt == nil,
			"a cancelled broadcast is left alone: %+v %v", got, err)
	})
}
