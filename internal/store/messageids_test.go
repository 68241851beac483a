package store_test

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

// TestCallerMessageIDsFoundByIndex (D74, D75): a Message-ID a caller gave
// an email is found, for threading, by an index that starts with the
// organization and the Message-ID, never by reading the organization's
// emails (which a stranger's reply could make happen at will); the
// lookup sees only the organization's own emails, and erasure (D78) and
// the deletion of records (D77) take the kept ids with the emails.
func TestCallerMessageIDsFoundByIndex(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		shop, other := createOrg(t, st, "Shop"), createOrg(t, st, "Other")
		email := func(org *carteiro.Organization, messageID, to string) *carteiro.Email {
			return &carteiro.Email{ID: uuid.Must(uuid.NewV7()).String(), OrgID: org.ID, Mode: carteiro.ModeLive,
				From: carteiro.Address{Email: "news@shop.example"}, To: []carteiro.Address{{Email: to}}, Subject: "s",
				Status: carteiro.EmailSent, MessageID: messageID, CreatedAt: baseTime}
		}
		erased := email(shop, "erased.1@client.example", "pat@x.example")
		expired := email(shop, "expired.2@client.example", "kim@x.example")
		kept := email(shop, "kept.3@client.example", "kim@x.example")
		generated := email(shop, "", "kim@x.example")
		elsewhere := email(other, "kept.3@client.example", "kim@x.example")
		all := []*carteiro.Email{erased, expired, kept, generated, elsewhere}
		if err := st.InTx(ctx, func(tx *store.Tx) error { return tx.InsertEmails(ctx, all) }); err != nil {
			t.Fatal(err)
		}
		lookup := func() map[string]string {
			t.Helper()
			got, err := st.EmailsByMessageID(ctx, shop.ID, []string{"erased.1@client.example", "expired.2@client.example",
				"kept.3@client.example", "unknown.4@client.example"})
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		got := lookup()
		testserver.Must(t, len(got) == 3 && got["erased.1@client.example"] == erased.ID && got["expired.2@client.example"] == expired.ID &&
			got["kept.3@client.example"] == kept.ID, "lookup %v", got)

		// A thousand more, so that the planner, told the table's size, has
		// reason to search rather than read.
		var more []*carteiro.Email
		for i := range 1000 {
			more = append(more, email(shop, fmt.Sprintf("more.%d@client.example", i), "kim@x.example"))
		}
		if err := st.InTx(ctx, func(tx *store.Tx) error { return tx.InsertEmails(ctx, more) }); err != nil {
			t.Fatal(err)
		}
		rawExec(t, st, `ANALYZE`)
		plan, err := st.ExplainEmailsByMessageID(ctx, shop.ID, []string{"a@client.example", "b@client.example"})
		if err != nil {
			t.Fatal(err)
		}
		// SQLite: "SEARCH email_message_ids USING PRIMARY KEY (org_id=? AND message_id=?)";
		// PostgreSQL: an index scan whose Index Cond names message_id.
		searchesByID := regexp.MustCompile(`(?s)SEARCH email_message_ids USING PRIMARY KEY \(org_id=\? AND message_id=\?|Index (Only )?Scan using email_message_ids_pkey.*Index Cond: .*message_id = ANY`)
		testserver.Must(t, searchesByID.MatchString(plan) && !regexp.MustCompile(`SCAN email|Seq Scan|\bemails\b`).MatchString(plan),
			"the lookup does not search by organization and Message-ID:\n%s", plan)

		if _, err := st.RedactEmails(ctx, []string{erased.ID}, store.NewEraser("pat@x.example"), time.Now()); err != nil {
			t.Fatal(err)
		}
		if _, err := st.DeleteEmails(ctx, []string{expired.ID}); err != nil {
			t.Fatal(err)
		}
		got = lookup()
		testserver.Must(t, len(got) == 1 && got["kept.3@client.example"] == kept.ID, "after erasure and deletion: %v", got)
		var rows int
		rawQuery(t, st, `SELECT COUNT(*) FROM email_message_ids`, nil, func(scan func(...any) error) error { return scan(&rows) })
		testserver.Must(t, rows == 2+len(more), "kept rows: %d, want kept and elsewhere's", rows)
	})
}

// TestMessageIDsMigrationKeepsCallerIDs: migration 0022 fills
// email_message_ids from the emails stored before it, with the Message-IDs
// callers gave and none of those the service wrote (<email id@domain>),
// so replies to older submitted emails still thread.
func TestMessageIDsMigrationKeepsCallerIDs(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "Shop")
		submitted := &carteiro.Email{ID: uuid.Must(uuid.NewV7()).String(), OrgID: org.ID, Mode: carteiro.ModeLive,
			From: carteiro.Address{Email: "news@shop.example"}, To: []carteiro.Address{{Email: "a@x.example"}}, Subject: "s",
			Status: carteiro.EmailSent, MessageID: "own.1@client.example", CreatedAt: baseTime}
		generated := &carteiro.Email{ID: uuid.Must(uuid.NewV7()).String(), OrgID: org.ID, Mode: carteiro.ModeLive,
			From: carteiro.Address{Email: "news@shop.example"}, To: []carteiro.Address{{Email: "a@x.example"}}, Subject: "s",
			Status: carteiro.EmailSent, CreatedAt: baseTime}
		if err := st.InTx(ctx, func(tx *store.Tx) error { return tx.InsertEmails(ctx, []*carteiro.Email{submitted, generated}) }); err != nil {
			t.Fatal(err)
		}
		// As the first attempt writes it (deliver.go).
		rawExec(t, st, `UPDATE emails SET message_id = ? WHERE id = ?`, generated.ID+"@shop.example", generated.ID)
		// Back to the schema before 0022, then migrate again.
		rawExec(t, st, `DROP TABLE email_message_ids`)
		rawExec(t, st, `DELETE FROM schema_migrations WHERE version = 22`)
		if _, err := st.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		got, err := st.EmailsByMessageID(ctx, org.ID, []string{"own.1@client.example", generated.ID + "@shop.example"})
		testserver.Must(t, err == nil && len(got) == 1 && got["own.1@client.example"] == submitted.ID, "after the migration: %v %v", got, err)
		var rows int
		rawQuery(t, st, `SELECT COUNT(*) FROM email_message_ids`, nil, func(scan func(...any) error) error { return scan(&rows) })
		testserver.Must(t, rows == 1, "kept %d ids, want the caller's only", rows)
	})
}
