package store_test

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

// TestPurgeListingsWalkTheIndex (D77, issue 31): each listing of the
// retention purge walks emails_by_time from its position, in its order,
// and stops at its cutoff, so that a batch costs what it lists whatever
// the table holds. On a database of mostly recent emails with recent
// events PostgreSQL took RecordsDue's NOT EXISTS for a filter that keeps
// almost nothing and planned a bitmap scan of every email before the
// cutoff, then a sort: each batch read all the emails still due, and a
// pass over 50,000 of them did not end.
func TestPurgeListingsWalkTheIndex(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		org := createOrg(t, st, "Shop")
		now := time.Now()
		// Many recent emails with their events, a few past each retention.
		seedDelivered(t, st, org.ID, "a", 3000, now.Add(-450*24*time.Hour), time.Second)
		seedDelivered(t, st, org.ID, "b", 3000, now.Add(-60*24*time.Hour), time.Second)
		seedDelivered(t, st, org.ID, "c", 30_000, now.Add(-24*time.Hour), time.Second)
		rawExec(t, st, `ANALYZE`)

		plans, err := st.ExplainPurge(testContext(t), org.ID, carteiro.ModeLive, now.Add(-400*24*time.Hour), now.Add(-30*24*time.Hour), 500)
		if err != nil {
			t.Fatal(err)
		}
		testserver.Must(t, len(plans) == 2, "plans: %v", plans)
		// SQLite: "SEARCH e USING INDEX emails_by_time (org_id=? AND mode=?
		// AND (created_at,id)>(?,?) AND created_at<?)" with no temporary
		// b-tree for the order; PostgreSQL: an index scan of emails_by_time
		// under the Limit, with no sort and no bitmap.
		walks := regexp.MustCompile(`SEARCH e USING INDEX emails_by_time \(org_id=\? AND mode=\? AND \(created_at,id\)>\(\?,\?\) AND created_at<\?\)|(?s)^Limit .*\n\s*->  Index Scan using emails_by_time on emails e`)
		reads := regexp.MustCompile(`SCAN |TEMP B-TREE|Sort|Bitmap|Seq Scan|Hash`)
		for _, p := range plans {
			testserver.Must(t, walks.MatchString(p.Plan) && !reads.MatchString(p.Plan),
				"%s does not walk emails_by_time from its position to its cutoff:\n%s", p.Name, p.Plan)
		}
	})
}

// seedDelivered inserts n delivered emails of org through SQL, from
// `from` a step apart, each with a recipient and the events sent and
// delivered a second and two after it (the API would take far longer).
func seedDelivered(t *testing.T, st *store.Store, orgID, prefix string, n int, from time.Time, step time.Duration) {
	t.Helper()
	series := fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d) `, n)
	id := fmt.Sprintf(`printf('%s-%%09d', i)`, prefix)
	if st.Dialect() == store.Postgres {
		series = fmt.Sprintf(`WITH n(i) AS (SELECT generate_series(1, %d)::bigint) `, n)
		id = fmt.Sprintf(`'%s-' || LPAD(CAST(i AS TEXT), 9, '0')`, prefix)
	}
	at := fmt.Sprintf(`(%d + i * %d)`, from.UnixMicro(), step.Microseconds())
	rawExec(t, st, series+`INSERT INTO emails (id, org_id, mode, sandbox, from_addr, from_email, to_addrs, subject, text_body,
		search_recipients, status, attempts, created_at, sent_at, delivered_at, open_count, click_count)
		SELECT `+id+`, '`+orgID+`', 'live', false, 'news@shop.example', 'news@shop.example', '["kim@x.example"]', 'Shipped',
		'Your order has shipped.', 'kim@x.example', 'delivered', 1, `+at+`, `+at+` + 1000000, `+at+` + 2000000, 0, 0 FROM n`)
	rawExec(t, st, series+`INSERT INTO email_recipients (email_id, position, address, status, updated_at)
		SELECT `+id+`, 0, 'kim@x.example', 'delivered', `+at+` + 2000000 FROM n`)
	for i, event := range []string{"email.sent", "email.delivered"} {
		rawExec(t, st, series+fmt.Sprintf(`INSERT INTO email_events (id, email_id, type, created_at)
			SELECT %s || '-%d', %s, '%s', %s + %d FROM n`, id, i, id, event, at, (i+1)*1000000))
	}
}
