package store_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

// A bulk import in parts: on PostgreSQL the parts go in without skipping
// duplicates until one meets an address the audience already has, and that
// part is rolled back to its savepoint and written again skipping them. On
// both stores exactly the new addresses are inserted and counted, whichever
// part holds the old ones.
func TestContactImportSkipsStoredAddressesInAnyPart(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "acme")
		aud := createAudience(t, st, org, "news")
		contact := func(i int) *carteiro.Contact {
			return &carteiro.Contact{ID: uuid.NewString(), AudienceID: aud.ID, OrgID: org.ID, Email: fmt.Sprintf("Person%04d@Example.com", i), CreatedAt: baseTime}
		}
		// Two addresses stored already, both in the third part below; one
		// given in another case.
		for _, i := range []int{2200, 2201} {
			c := contact(i)
			if i == 2201 {
				c.Email = strings.ToLower(c.Email)
			}
			if err := st.InTx(ctx, func(tx *store.Tx) error { return tx.InsertContact(ctx, c) }); err != nil {
				t.Fatal(err)
			}
		}
		var inserted map[string]bool
		err := st.InTx(ctx, func(tx *store.Tx) error {
			imp := tx.ImportContacts(aud.ID, 4000)
			for part := range 4 {
				cs := make([]*carteiro.Contact, 1000)
				for i := range cs {
					cs[i] = contact(part*1000 + i)
				}
				if err := imp.Add(ctx, cs); err != nil {
					return fmt.Errorf("part %d: %w", part, err)
				}
			}
			inserted = imp.Inserted
			return imp.Finish(ctx)
		})
		testserver.Must(t, err == nil, "import: %v", err)
		testserver.Must(t, len(inserted) == 3998 && !inserted["person2200@example.com"] && !inserted["person2201@example.com"] &&
			inserted["person2199@example.com"] && inserted["person3999@example.com"], "inserted %d keys", len(inserted))
		got, err := st.Audience(ctx, org.ID, aud.ID)
		testserver.Must(t, err == nil && got.ContactsCount == 4000, "contactsCount %d, %v; want 4000", got.ContactsCount, err)
		all, err := st.ListContacts(ctx, aud.ID, 5000, 0)
		testserver.Must(t, err == nil && len(all) == 4000, "%d contacts stored, %v; want 4000", len(all), err)
	})
}

// Contacts live and die with their audience, on PostgreSQL without a
// foreign key (migration 0011): deleting the audience deletes them, and a
// contact written into an audience that is gone is refused and leaves no
// row behind.
func TestContactsGoWithTheirAudience(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "acme")
		aud := createAudience(t, st, org, "news")
		if st.Dialect() == store.Postgres {
			var keys int
			rawQuery(t, st, `SELECT COUNT(*) FROM pg_constraint WHERE conrelid = CAST('contacts' AS regclass) AND contype = 'f'`, nil,
				func(scan func(...any) error) error { return scan(&keys) })
			testserver.Must(t, keys == 0, "contacts still has %d foreign keys on PostgreSQL", keys)
		}
		contactRows := func(audienceID string) int {
			var n int
			rawQuery(t, st, `SELECT COUNT(*) FROM contacts WHERE audience_id = ?`, []any{audienceID}, func(scan func(...any) error) error { return scan(&n) })
			return n
		}
		cs := make([]*carteiro.Contact, 30)
		for i := range cs {
			cs[i] = &carteiro.Contact{ID: uuid.NewString(), AudienceID: aud.ID, OrgID: org.ID, Email: fmt.Sprintf("c%02d@example.com", i), CreatedAt: baseTime}
		}
		err := st.InTx(ctx, func(tx *store.Tx) error { _, err := tx.InsertContactsSkippingDuplicates(ctx, aud.ID, cs); return err })
		testserver.Must(t, err == nil && contactRows(aud.ID) == 30, "import: %v, %d rows", err, contactRows(aud.ID))

		testserver.Must(t, st.DeleteAudience(ctx, org.ID, aud.ID) == nil, "delete audience")
		testserver.Must(t, contactRows(aud.ID) == 0, "%d contacts outlived their audience", contactRows(aud.ID))
		testserver.Must(t, errors.Is(st.DeleteAudience(ctx, org.ID, aud.ID), store.ErrNotFound), "deleting it again is not found")

		late := &carteiro.Contact{ID: uuid.NewString(), AudienceID: aud.ID, OrgID: org.ID, Email: "late@example.com", CreatedAt: baseTime}
		err = st.InTx(ctx, func(tx *store.Tx) error { return tx.InsertContact(ctx, late) })
		testserver.Must(t, err != nil, "a contact written into a deleted audience was accepted")
		err = st.InTx(ctx, func(tx *store.Tx) error {
			_, err := tx.InsertContactsSkippingDuplicates(ctx, aud.ID, cs[:3])
			return err
		})
		testserver.Must(t, err != nil, "an import into a deleted audience was accepted")
		testserver.Must(t, contactRows(aud.ID) == 0, "%d contacts left in a deleted audience", contactRows(aud.ID))
	})
}
