package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

var statsHour = time.Date(2031, 5, 17, 10, 0, 0, 0, time.UTC)

func increment(ctx context.Context, st *store.Store, k store.StatsKey, m store.StatsMetric) error {
	return st.InTx(ctx, func(tx *store.Tx) error { return tx.IncrementStats(ctx, k, m, 1) })
}

// counterRows counts the rows holding one organization's hourly counters of tag.
func counterRows(t *testing.T, st *store.Store, orgID, tag string) int {
	t.Helper()
	var n int
	rawQuery(t, st, `SELECT COUNT(*) FROM stats_counters WHERE org_id = ? AND tag = ? AND bucket_hours = 1`, []any{orgID, tag},
		func(scan func(...any) error) error { return scan(&n) })
	return n
}

// D54: every count is kept, whichever rows hold it. On PostgreSQL the
// counts of different emails spread over a few shard rows of their hour;
// SQLite keeps one row.
func TestStatsCountsSumOverShards(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		const emails = 40
		for i := range emails {
			k := store.StatsKey{OrgID: "org_1", Mode: "live", Hour: statsHour.Add(time.Duration(i) * time.Second), EmailID: fmt.Sprintf("email-%d", i)}
			for _, tag := range []string{"", "campaign"} {
				k.Tag = tag
				if err := increment(ctx, st, k, store.MetricSent); err != nil {
					t.Fatal(err)
				}
				if i%4 == 0 {
					if err := increment(ctx, st, k, store.MetricBounced); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		for _, tag := range []string{"", "campaign"} {
			got, err := st.StatsHours(ctx, "org_1", "live", tag, "", statsHour, statsHour.Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || !got[0].Hour.Equal(statsHour) || got[0].Sent != emails || got[0].Bounced != emails/4 || got[0].Delivered != 0 {
				t.Fatalf("tag %q: StatsHours = %+v, want one hour with 40 sent and 10 bounced", tag, got)
			}
		}
		rows := counterRows(t, st, "org_1", "")
		switch {
		case b == testserver.SQLite && rows != 1:
			t.Errorf("SQLite holds the hour in %d rows, want 1", rows)
		case b == testserver.Postgres && (rows < 2 || rows > 8):
			t.Errorf("PostgreSQL holds 40 emails' counts in %d rows, want 2 to 8 shards", rows)
		}
	})
}

// On PostgreSQL a transaction that counted an email and has not committed
// yet (its delivery still recording events) no longer holds up the counts
// of most other emails of the same hour: before shards, all of them waited
// for its commit.
func TestStatsCountsOfOtherEmailsDoNotWait(t *testing.T) {
	t.Parallel()
	st := openStore(t, testserver.Postgres)
	ctx := testContext(t)
	key := func(email string) store.StatsKey {
		return store.StatsKey{OrgID: "org_1", Mode: "live", Hour: statsHour, EmailID: email}
	}
	commitFirst := openTx(t, st, func(tx *store.Tx) error {
		return tx.IncrementStats(ctx, key("email-0"), store.MetricSent, 1)
	})
	committed := 0
	for i := 1; i <= 8; i++ {
		attempt, cancel := context.WithTimeout(ctx, time.Second)
		err := increment(attempt, st, key(fmt.Sprintf("email-%d", i)), store.MetricSent)
		cancel()
		switch {
		case err == nil:
			committed++
		case errors.Is(attempt.Err(), context.DeadlineExceeded):
			// this email shares the first one's row: it waits, as it must
		default:
			t.Fatalf("email-%d: %v", i, err)
		}
	}
	if err := commitFirst(); err != nil {
		t.Fatalf("first transaction: %v", err)
	}
	if committed < 4 {
		t.Fatalf("%d of 8 other emails' counts committed while the first email's transaction was open, want most", committed)
	}
	got, err := st.StatsHours(ctx, "org_1", "live", "", "", statsHour, statsHour.Add(time.Hour))
	if err != nil || len(got) != 1 || got[0].Sent != int64(1+committed) {
		t.Fatalf("StatsHours = %+v, %v; want %d sent", got, err, 1+committed)
	}
}

// GET /stats' days, weeks and months are sums of UTC days: StatsSums adds
// up each day's hours (and shards) in the query.
func TestStatsSumsPerDay(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		day := time.Date(2031, 5, 17, 0, 0, 0, 0, time.UTC)
		// 30 emails an hour apart from 23:00 the day before: 1, 24 and 5
		// emails on three days.
		for i := range 30 {
			k := store.StatsKey{OrgID: "org_1", Mode: "live", Hour: day.Add(time.Duration(i-1) * time.Hour), EmailID: fmt.Sprintf("email-%d", i)}
			if err := increment(ctx, st, k, store.MetricDelivered); err != nil {
				t.Fatal(err)
			}
		}
		got, err := st.StatsSums(ctx, "org_1", "live", "", "", day.Add(-24*time.Hour), day.Add(72*time.Hour), 24*time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		want := []int64{1, 24, 5}
		if len(got) != len(want) {
			t.Fatalf("StatsSums per day = %+v, want %v delivered on three days", got, want)
		}
		for i, r := range got {
			if start := day.Add(time.Duration(i-1) * 24 * time.Hour); !r.Hour.Equal(start) || r.Delivered != want[i] || r.Sent != 0 {
				t.Errorf("day %d: %+v, want %d delivered from %v", i, r, want[i], start)
			}
		}
		hours, err := st.StatsSums(ctx, "org_1", "live", "", "", day.Add(-24*time.Hour), day.Add(72*time.Hour), time.Hour)
		if err != nil || len(hours) != 30 {
			t.Fatalf("StatsSums per hour: %d rows, %v; want 30", len(hours), err)
		}
	})
}

// One AddStats call may name a key twice (an email whose events span a
// single hour, counted for all emails and per tag): the counts add up, in
// the hour and in the UTC day, where one statement could not update a row
// twice.
func TestAddStatsMergesRepeatedKeys(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		all := store.StatsKey{OrgID: "org_1", Mode: "live", Hour: statsHour, EmailID: "email-1"}
		tagged := all
		tagged.Tag = "campaign"
		later := all
		later.Hour = statsHour.Add(90 * time.Minute)
		err := st.InTx(ctx, func(tx *store.Tx) error {
			return tx.AddStats(ctx,
				store.StatsAddition{Key: tagged, Counts: map[store.StatsMetric]int{store.MetricOpened: 1}},
				store.StatsAddition{Key: all, Counts: map[store.StatsMetric]int{store.MetricSent: 1, store.MetricDelivered: 1}},
				store.StatsAddition{Key: all, Counts: map[store.StatsMetric]int{store.MetricOpened: 2}},
				store.StatsAddition{Key: later, Counts: map[store.StatsMetric]int{store.MetricClicked: 1}})
		})
		if err != nil {
			t.Fatal(err)
		}
		day := statsHour.Truncate(24 * time.Hour)
		days, err := st.StatsSums(ctx, "org_1", "live", "", "", day, day.Add(24*time.Hour), 24*time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if len(days) != 1 || !days[0].Hour.Equal(day) || days[0].Sent != 1 || days[0].Delivered != 1 || days[0].Opened != 2 || days[0].Clicked != 1 {
			t.Fatalf("day of all emails = %+v, want 1 sent, 1 delivered, 2 opened, 1 clicked", days)
		}
		hours, err := st.StatsHours(ctx, "org_1", "live", "", "", day, day.Add(24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if len(hours) != 2 || hours[0].Opened != 2 || hours[0].Clicked != 0 || hours[1].Clicked != 1 || !hours[1].Hour.Equal(statsHour.Add(time.Hour)) {
			t.Fatalf("hours of all emails = %+v, want 2 opened at %v and 1 clicked an hour later", hours, statsHour)
		}
		tags, err := st.StatsSums(ctx, "org_1", "live", "campaign", "", day, day.Add(24*time.Hour), 24*time.Hour)
		if err != nil || len(tags) != 1 || tags[0].Opened != 1 || tags[0].Sent != 0 {
			t.Fatalf("day of tag campaign = %+v, %v; want 1 opened", tags, err)
		}
	})
}
