package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

// deliveredPerDay is StatsDays' delivered counts of org_1's live emails over
// the days [from, from+days), settled before settled; a day without counts
// is 0.
func deliveredPerDay(ctx context.Context, t *testing.T, st *store.Store, from time.Time, days int, settled time.Time) []int64 {
	t.Helper()
	rows, err := st.StatsDays(ctx, "org_1", "live", "", "", from, from.AddDate(0, 0, days), settled)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int64, days)
	for i, r := range rows {
		if i > 0 && !rows[i-1].Hour.Before(r.Hour) {
			t.Fatalf("StatsDays rows out of order: %+v", rows)
		}
		d := int(r.Hour.Sub(from) / (24 * time.Hour))
		if d < 0 || d >= days || !r.Hour.Equal(from.AddDate(0, 0, d)) {
			t.Fatalf("StatsDays row %+v outside the days asked for", r)
		}
		out[d] = r.Delivered
	}
	return out
}

func deliver(ctx context.Context, t *testing.T, st *store.Store, at time.Time, n int) {
	t.Helper()
	for i := range n {
		k := store.StatsKey{OrgID: "org_1", Mode: "live", Hour: at, EmailID: fmt.Sprintf("e-%d-%d", at.Unix(), i)}
		if err := increment(ctx, st, k, store.MetricDelivered); err != nil {
			t.Fatal(err)
		}
	}
}

// GET /stats reads settled days from the store's memory (statscache.go):
// what it answers must still be what the counters hold, whatever writes
// come after a copy was taken, in whatever order.
func TestStatsDaysStayExactAcrossSettledCopies(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		day0 := time.Date(2031, 5, 10, 0, 0, 0, 0, time.UTC)
		for d, n := range []int{3, 0, 5, 2} {
			deliver(ctx, t, st, day0.AddDate(0, 0, d).Add(7*time.Hour), n)
		}
		settled := day0.AddDate(0, 0, 3) // days 0-2 settled, day 3 not
		assertDays := func(step string, from time.Time, days int, want ...int64) {
			t.Helper()
			got := deliveredPerDay(ctx, t, st, from, days, settled)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s: delivered per day %v, want %v", step, got, want)
			}
		}
		assertDays("first read", day0, 4, 3, 0, 5, 2)
		assertDays("second read (settled days from memory)", day0, 4, 3, 0, 5, 2)
		assertDays("a part of the copy", day0.AddDate(0, 0, 1), 2, 0, 5)

		// The day that is not settled is read from the database every time.
		deliver(ctx, t, st, day0.AddDate(0, 0, 3).Add(9*time.Hour), 4)
		assertDays("after counts on the open day", day0, 4, 3, 0, 5, 6)

		// A late count into a settled day (a clock moved back) drops the copy.
		deliver(ctx, t, st, day0.AddDate(0, 0, 1).Add(time.Hour), 7)
		assertDays("after a late count", day0, 4, 3, 7, 5, 6)

		// A wider range than the copy: read again, and joined to it.
		deliver(ctx, t, st, day0.AddDate(0, 0, -2).Add(time.Hour), 1)
		assertDays("wider", day0.AddDate(0, 0, -2), 6, 1, 0, 3, 7, 5, 6)
		assertDays("wider, again", day0.AddDate(0, 0, -2), 6, 1, 0, 3, 7, 5, 6)

		// A write into a settled day that has not committed while a read
		// runs: the read sees the day without it, and no later read keeps
		// that view once it commits.
		begun, release := make(chan struct{}), make(chan struct{})
		done := make(chan error, 1)
		go func() {
			done <- st.InTx(ctx, func(tx *store.Tx) error {
				k := store.StatsKey{OrgID: "org_1", Mode: "live", Hour: day0.Add(2 * time.Hour), EmailID: "late"}
				if err := tx.IncrementStats(ctx, k, store.MetricDelivered, 10); err != nil {
					return err
				}
				close(begun)
				<-release
				return nil
			})
		}()
		<-begun
		assertDays("while a late write is open", day0, 4, 3, 7, 5, 6)
		assertDays("while a late write is open, again", day0, 4, 3, 7, 5, 6)
		close(release)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		assertDays("after the late write committed", day0, 4, 13, 7, 5, 6)
		assertDays("after the late write committed, again", day0, 4, 13, 7, 5, 6)

		// Nothing settled: every day from the database.
		if got := deliveredPerDay(ctx, t, st, day0, 4, day0); fmt.Sprint(got) != "[13 7 5 6]" {
			t.Fatalf("nothing settled: delivered per day %v, want [13 7 5 6]", got)
		}
		other, err := st.StatsDays(ctx, "org_1", "live", "no-such-tag", "", day0, day0.AddDate(0, 0, 4), settled)
		if err != nil || len(other) != 0 {
			t.Fatalf("another tag: %+v, %v; want no rows", other, err)
		}
	})
}
