package store_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

// searchSeed is one email of seedSearch.
type searchSeed struct {
	id, recipients, subject string
	createdAt               time.Time
}

// seedSearch inserts n live emails of org through SQL, two by two sharing a
// createdAt (D27's groups), newest last, one in rareEvery to a rare
// customer. Every one goes to kim@x.example
// with the subject "Order SHIPPED #i"; some also go to a rare customer,
// some have a subject with LIKE's wildcards and a double quote, a decoy
// those wildcards would match, or a non-ASCII word.
func seedSearch(t *testing.T, st *store.Store, orgID string, n, rareEvery int, start time.Time) []searchSeed {
	t.Helper()
	var all []searchSeed
	for i := range n {
		s := searchSeed{id: fmt.Sprintf("em-%06d", i), recipients: "kim@x.example", subject: fmt.Sprintf("Order SHIPPED #%d", i),
			createdAt: start.Add(time.Duration(i/2) * time.Second)}
		switch {
		case i%rareEvery == 7:
			s.recipients += " rare.customer@shop.example"
		case i%97 == 3:
			s.subject = `50% off_now "quoted" today`
		case i%89 == 1:
			s.subject = "500 offen"
		case i%113 == 5:
			s.subject = "Confirmação do pedido"
		}
		all = append(all, s)
	}
	for from := 0; from < n; from += 500 {
		var rows []string
		var args []any
		for _, s := range all[from:min(from+500, n)] {
			rows = append(rows, `(?, ?, 'live', false, '[{"e":"shop@shop.example"}]', 'shop@shop.example', '[{"e":"kim@x.example"}]', ?, ?, 'delivered', 1, ?, 0, 0)`)
			args = append(args, s.id, orgID, s.subject, s.recipients, s.createdAt.UnixMicro())
		}
		rawExec(t, st, `INSERT INTO emails (id, org_id, mode, sandbox, from_addr, from_email, to_addrs, subject, search_recipients,
			status, attempts, created_at, open_count, click_count) VALUES `+strings.Join(rows, ", "), args...)
	}
	return all
}

// TestEmailSearchFindsWhatTheScanFinds (D28, issue 26): with the trigram
// index the substring filters list exactly what reading every email
// finds, page after page (D27): rare, common and absent terms, terms too
// short for a trigram, LIKE's wildcards and a double quote taken
// literally, case folded, non-ASCII, both filters at once, and a range.
func TestEmailSearchFindsWhatTheScanFinds(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		org := createOrg(t, st, "Shop")
		start := time.Now().Add(-24 * time.Hour).Truncate(time.Second)
		// More emails than the probe reads, so that both paths run.
		seeds := seedSearch(t, st, org.ID, 3000, 500, start)
		middle := start.Add(700 * time.Second)
		filters := []store.EmailFilter{
			{Recipient: "rare.customer"},
			{Recipient: "RARE.Customer@SHOP"},
			{Recipient: "example"},
			{Recipient: "nobody-here"},
			{Recipient: "ra"},
			{SubjectContains: "shipped"},
			{SubjectContains: "50%"},
			{SubjectContains: "f_n"},
			{SubjectContains: `"quoted"`},
			{SubjectContains: "ção"},
			{SubjectContains: "CONFIRMAÇÃO"},
			{SubjectContains: "#1"},
			{Recipient: "rare.customer", SubjectContains: "order"},
			{Recipient: "kim@", SubjectContains: "offen", To: &middle},
			{Recipient: "rare.customer", From: &start, To: &middle},
		}
		for _, f := range filters {
			var want []string
			for _, s := range slices.Backward(seeds) {
				if strings.Contains(s.recipients, strings.ToLower(f.Recipient)) &&
					strings.Contains(strings.ToLower(s.subject), strings.ToLower(f.SubjectContains)) &&
					(f.From == nil || !s.createdAt.Before(*f.From)) && (f.To == nil || s.createdAt.Before(*f.To)) {
					want = append(want, s.id)
				}
			}
			// Small pages for the rarer terms; the common ones walk pages
			// of 100, served by the probe until their last pages.
			limits := []int{100}
			if len(want) < 300 {
				limits = append(limits, 7)
			}
			for _, limit := range limits {
				f.OrgID, f.Mode, f.Limit, f.After = org.ID, carteiro.ModeLive, limit, nil
				var got []string
				for pages := 0; ; pages++ {
					testserver.Must(t, pages <= len(seeds), "%+v: the pages do not end", f)
					page, next, err := st.ListEmails(testContext(t), f)
					if err != nil {
						t.Fatalf("%+v: %v", f, err)
					}
					for _, e := range page {
						got = append(got, e.ID)
					}
					if next == nil {
						break
					}
					f.After = next
				}
				// A page holds both emails of a createdAt, in id order
				// newest first as the seeds are.
				testserver.Must(t, slices.Equal(got, want), "recipient %q subject %q limit %d: got %d emails, want %d (%v... vs %v...)",
					f.Recipient, f.SubjectContains, limit, len(got), len(want), got[:min(len(got), 4)], want[:min(len(want), 4)])
			}
		}
	})
}

// TestEmailSearchUsesTheTrigramIndex (issue 26): a rare recipient is found
// through the trigram index instead of by reading the organization's
// emails: on SQLite through the FTS5 table email_search, its candidates
// looked up by rowid; on PostgreSQL by a bitmap scan of the trigram index
// on search_recipients.
func TestEmailSearchUsesTheTrigramIndex(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		org := createOrg(t, st, "Shop")
		seedSearch(t, st, org.ID, 20_000, 10_000, time.Now().Add(-24*time.Hour))
		rawExec(t, st, `ANALYZE`)
		plan, err := st.ExplainEmailSearch(testContext(t), store.EmailFilter{OrgID: org.ID, Mode: carteiro.ModeLive, Recipient: "rare.customer", Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("plan:\n%s", plan)
		uses := regexp.MustCompile(`SCAN email_search VIRTUAL TABLE INDEX|Bitmap Index Scan on emails_search_recipients_trgm`)
		testserver.Must(t, uses.MatchString(plan), "the search does not use the trigram index:\n%s", plan)
		if st.Dialect() == store.SQLite {
			probe, err := st.ExplainEmailProbe(testContext(t), store.EmailFilter{OrgID: org.ID, Mode: carteiro.ModeLive, Recipient: "rare.customer", Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("probe plan:\n%s", probe)
			testserver.Must(t, regexp.MustCompile(`SEARCH emails USING INTEGER PRIMARY KEY \(rowid=\?\)`).MatchString(plan) &&
				!regexp.MustCompile(`SCAN emails`).MatchString(plan), "the search reads the emails beyond the index's candidates:\n%s", plan)
		}
	})
}
