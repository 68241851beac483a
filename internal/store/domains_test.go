package store_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

// checkDomain fails unless got is want after a round trip.
func checkDomain(t *testing.T, got, want *carteiro.Domain) {
	t.Helper()
	if got.ID != want.ID || got.OrgID != want.OrgID || got.Name != want.Name || got.Status != want.Status ||
		got.DKIMSelector != want.DKIMSelector || got.DKIMPublicKey != want.DKIMPublicKey ||
		got.DKIMPrivateKey != want.DKIMPrivateKey || got.OwnershipToken != want.OwnershipToken {
		t.Errorf("domain = %+v, want %+v", got, want)
	}
	sameTime(t, "CreatedAt", got.CreatedAt, want.CreatedAt)
	sameTimePtr(t, "VerifiedAt", got.VerifiedAt, want.VerifiedAt)
	sameTimePtr(t, "LastCheckAt", got.LastCheckAt, want.LastCheckAt)
	sameTimePtr(t, "DeletedAt", got.DeletedAt, want.DeletedAt)
}

func domainNames(ds []*carteiro.Domain) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Name)
	}
	return out
}

func TestDomainRoundTrip(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "acme")

		want := newDomain(org.ID, "example.com", baseTime)
		want.Status = carteiro.DomainVerified
		want.VerifiedAt = ptr(baseTime.Add(time.Minute))
		want.LastCheckAt = ptr(baseTime.Add(2 * time.Minute))
		if err := st.CreateDomain(ctx, want); err != nil {
			t.Fatalf("create: %v", err)
		}

		got, err := st.Domain(ctx, org.ID, want.ID)
		if err != nil {
			t.Fatalf("Domain: %v", err)
		}
		checkDomain(t, got, want)
		if got, err := st.DomainByID(ctx, want.ID); err != nil {
			t.Errorf("DomainByID: %v", err)
		} else {
			checkDomain(t, got, want)
		}
		if got, err := st.DomainByName(ctx, org.ID, "example.com"); err != nil {
			t.Errorf("DomainByName: %v", err)
		} else {
			checkDomain(t, got, want)
		}
	})
}

// D35 and D11: names are unique among the live domains of one organization.
func TestCreateDomainUniqueLiveName(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "acme")
		other := createOrg(t, st, "other")
		first := createDomain(t, st, org.ID, "example.com", baseTime)

		err := st.CreateDomain(ctx, newDomain(org.ID, "example.com", baseTime.Add(time.Second)))
		if !errors.Is(err, store.ErrConflict) {
			t.Fatalf("duplicate live name: err = %v, want ErrConflict", err)
		}
		if ds, err := st.ListDomains(ctx, org.ID); err != nil || len(ds) != 1 {
			t.Errorf("after the refused duplicate the organization has %d domains (%v), want 1", len(ds), err)
		}

		// Another organization may hold the same name.
		theirs := createDomain(t, st, other.ID, "example.com", baseTime)
		if got, err := st.DomainByName(ctx, other.ID, "example.com"); err != nil || got.ID != theirs.ID {
			t.Errorf("other organization's domain: %+v, %v", got, err)
		}

		// D35: once deleted, the name can be added again, any number of times.
		if err := st.SoftDeleteDomain(ctx, org.ID, first.ID, baseTime.Add(time.Hour)); err != nil {
			t.Fatalf("delete: %v", err)
		}
		second := createDomain(t, st, org.ID, "example.com", baseTime.Add(2*time.Hour))
		if got, err := st.DomainByName(ctx, org.ID, "example.com"); err != nil || got.ID != second.ID {
			t.Errorf("DomainByName after re-adding = %+v, %v; want the new domain %s", got, err, second.ID)
		}
		if err := st.SoftDeleteDomain(ctx, org.ID, second.ID, baseTime.Add(3*time.Hour)); err != nil {
			t.Fatalf("delete again: %v", err)
		}
		createDomain(t, st, org.ID, "example.com", baseTime.Add(4*time.Hour))
		if err := st.CreateDomain(ctx, newDomain(org.ID, "example.com", baseTime.Add(5*time.Hour))); !errors.Is(err, store.ErrConflict) {
			t.Errorf("duplicate of the re-added name: err = %v, want ErrConflict", err)
		}
	})
}

// D35, D11: deleted domains and other organizations' domains are not found.
func TestDomainVisibility(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "acme")
		other := createOrg(t, st, "other")
		d := createDomain(t, st, org.ID, "example.com", baseTime)

		if _, err := st.Domain(ctx, other.ID, d.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Domain with another organization: err = %v, want ErrNotFound", err)
		}
		if _, err := st.DomainByName(ctx, other.ID, "example.com"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("DomainByName with another organization: err = %v, want ErrNotFound", err)
		}
		if _, err := st.Domain(ctx, org.ID, uuid.NewString()); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown domain: err = %v, want ErrNotFound", err)
		}
		if err := st.SoftDeleteDomain(ctx, other.ID, d.ID, baseTime); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("delete by another organization: err = %v, want ErrNotFound", err)
		}
		if _, err := st.Domain(ctx, org.ID, d.ID); err != nil {
			t.Fatalf("domain gone after another organization's delete attempt: %v", err)
		}

		if err := st.SoftDeleteDomain(ctx, org.ID, d.ID, baseTime.Add(time.Hour)); err != nil {
			t.Fatalf("delete: %v", err)
		}
		if _, err := st.Domain(ctx, org.ID, d.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Domain after delete: err = %v, want ErrNotFound", err)
		}
		if _, err := st.DomainByID(ctx, d.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("DomainByID after delete: err = %v, want ErrNotFound", err)
		}
		if _, err := st.DomainByName(ctx, org.ID, "example.com"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("DomainByName after delete: err = %v, want ErrNotFound", err)
		}
		if ds, err := st.ListDomains(ctx, org.ID); err != nil || len(ds) != 0 {
			t.Errorf("ListDomains after delete = %v, %v; want none", domainNames(ds), err)
		}
		if err := st.SoftDeleteDomain(ctx, org.ID, d.ID, baseTime.Add(2*time.Hour)); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("second delete: err = %v, want ErrNotFound", err)
		}
		d.Status = carteiro.DomainVerified
		if err := st.UpdateDomainCheck(ctx, d); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("UpdateDomainCheck of a deleted domain: err = %v, want ErrNotFound", err)
		}
	})
}

func TestListDomainsNewestFirst(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "acme")
		other := createOrg(t, st, "other")

		if ds, err := st.ListDomains(ctx, org.ID); err != nil || len(ds) != 0 {
			t.Fatalf("no domains yet: %v, %v", domainNames(ds), err)
		}
		createDomain(t, st, org.ID, "b.example", baseTime.Add(time.Microsecond))
		createDomain(t, st, org.ID, "c.example", baseTime.Add(time.Hour))
		createDomain(t, st, org.ID, "a.example", baseTime)
		createDomain(t, st, other.ID, "foreign.example", baseTime.Add(30*time.Minute))
		gone := createDomain(t, st, org.ID, "gone.example", baseTime.Add(2*time.Hour))
		if err := st.SoftDeleteDomain(ctx, org.ID, gone.ID, baseTime.Add(3*time.Hour)); err != nil {
			t.Fatalf("delete: %v", err)
		}

		ds, err := st.ListDomains(ctx, org.ID)
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		if got, want := domainNames(ds), []string{"c.example", "b.example", "a.example"}; !slices.Equal(got, want) {
			t.Errorf("ListDomains = %v, want %v", got, want)
		}
	})
}

// D32: the check outcome is stored and read back at microsecond precision.
func TestUpdateDomainCheckRoundTrip(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "acme")
		d := createDomain(t, st, org.ID, "example.com", baseTime)
		bystander := createDomain(t, st, org.ID, "other.example", baseTime)

		d.Status = carteiro.DomainVerified
		d.VerifiedAt = ptr(baseTime.Add(90*time.Minute + 987654321*time.Nanosecond))
		d.LastCheckAt = ptr(baseTime.Add(91*time.Minute + 1*time.Nanosecond))
		if err := st.UpdateDomainCheck(ctx, d); err != nil {
			t.Fatalf("update: %v", err)
		}
		got, err := st.Domain(ctx, org.ID, d.ID)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		checkDomain(t, got, d)

		// A later failed check: verifiedAt may be cleared, lastCheckAt moves.
		d.Status = carteiro.DomainFailed
		d.VerifiedAt = nil
		d.LastCheckAt = ptr(baseTime.Add(25 * time.Hour))
		if err := st.UpdateDomainCheck(ctx, d); err != nil {
			t.Fatalf("update to failed: %v", err)
		}
		got, err = st.Domain(ctx, org.ID, d.ID)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		checkDomain(t, got, d)

		if got, err := st.Domain(ctx, org.ID, bystander.ID); err != nil {
			t.Fatalf("read bystander: %v", err)
		} else {
			checkDomain(t, got, bystander)
		}

		unknown := newDomain(org.ID, "unknown.example", baseTime)
		if err := st.UpdateDomainCheck(ctx, unknown); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("update unknown domain: err = %v, want ErrNotFound", err)
		}
	})
}

// D32: the sweep sees pending domains older than the deadline (to fail
// them) and verified domains not checked since the re-check time, nothing
// else, oldest first, at most limit.
func TestDomainsDue(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "acme")
		other := createOrg(t, st, "other")
		now := baseTime
		staleBefore := now.Add(-carteiro.UnverifiedDeadline)
		checkBefore := now.Add(-24 * time.Hour)

		add := func(orgID, name string, status carteiro.DomainStatus, created time.Time, lastCheck *time.Time) *carteiro.Domain {
			d := newDomain(orgID, name, created)
			d.Status = status
			d.LastCheckAt = lastCheck
			if status == carteiro.DomainVerified {
				d.VerifiedAt = ptr(created.Add(time.Minute))
			}
			if err := st.CreateDomain(ctx, d); err != nil {
				t.Fatalf("create %s: %v", name, err)
			}
			return d
		}
		// Due.
		add(org.ID, "verified-stale", carteiro.DomainVerified, now.Add(-100*time.Hour), ptr(checkBefore.Add(-time.Microsecond)))
		add(other.ID, "pending-old-other-org", carteiro.DomainPending, now.Add(-90*time.Hour), nil)
		add(org.ID, "pending-just-old", carteiro.DomainPending, staleBefore.Add(-time.Microsecond), nil)
		add(org.ID, "verified-never-checked", carteiro.DomainVerified, now.Add(-2*time.Hour), nil)
		// Not due.
		add(org.ID, "pending-just-young", carteiro.DomainPending, staleBefore.Add(time.Microsecond), nil)
		add(org.ID, "pending-new", carteiro.DomainPending, now.Add(-time.Hour), nil)
		add(org.ID, "verified-fresh", carteiro.DomainVerified, now.Add(-100*time.Hour), ptr(checkBefore.Add(time.Microsecond)))
		add(org.ID, "failed-old", carteiro.DomainFailed, now.Add(-200*time.Hour), ptr(now.Add(-100*time.Hour)))
		deleted := add(org.ID, "deleted-pending-old", carteiro.DomainPending, now.Add(-95*time.Hour), nil)
		if err := st.SoftDeleteDomain(ctx, org.ID, deleted.ID, now.Add(-time.Hour)); err != nil {
			t.Fatalf("delete: %v", err)
		}
		deletedVerified := add(org.ID, "deleted-verified-stale", carteiro.DomainVerified, now.Add(-96*time.Hour), ptr(now.Add(-50*time.Hour)))
		if err := st.SoftDeleteDomain(ctx, org.ID, deletedVerified.ID, now.Add(-time.Hour)); err != nil {
			t.Fatalf("delete: %v", err)
		}

		want := []string{"verified-stale", "pending-old-other-org", "pending-just-old", "verified-never-checked"}
		due, err := st.DomainsDue(ctx, staleBefore, checkBefore, 100)
		if err != nil {
			t.Fatalf("DomainsDue: %v", err)
		}
		if got := domainNames(due); !slices.Equal(got, want) {
			t.Errorf("DomainsDue = %v, want %v", got, want)
		}

		for _, limit := range []int{1, 2, 3} {
			due, err := st.DomainsDue(ctx, staleBefore, checkBefore, limit)
			if err != nil {
				t.Fatalf("DomainsDue limit %d: %v", limit, err)
			}
			if got := domainNames(due); !slices.Equal(got, want[:limit]) {
				t.Errorf("DomainsDue limit %d = %v, want %v", limit, got, want[:limit])
			}
		}
	})
}

// The sending domain's look-up (D17) finds only live, verified domains of
// the organization, by exact name.
func TestVerifiedDomainsNamed(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org, other := createOrg(t, st, "acme"), createOrg(t, st, "other")
		verify := func(d *carteiro.Domain) {
			t.Helper()
			d.Status, d.VerifiedAt = carteiro.DomainVerified, ptr(baseTime)
			if err := st.UpdateDomainCheck(ctx, d); err != nil {
				t.Fatalf("verify %s: %v", d.Name, err)
			}
		}
		parent := createDomain(t, st, org.ID, "example.com", baseTime)
		verify(parent)
		child := createDomain(t, st, org.ID, "mail.example.com", baseTime)
		verify(child)
		createDomain(t, st, org.ID, "pending.example.com", baseTime) // not verified
		gone := createDomain(t, st, org.ID, "gone.example.com", baseTime)
		verify(gone)
		if err := st.SoftDeleteDomain(ctx, org.ID, gone.ID, baseTime.Add(time.Hour)); err != nil {
			t.Fatalf("delete: %v", err)
		}
		verify(createDomain(t, st, other.ID, "other.example.com", baseTime)) // another organization's

		got, err := st.VerifiedDomainsNamed(ctx, org.ID, []string{"a.mail.example.com", "mail.example.com", "example.com", "com"})
		if err != nil {
			t.Fatalf("look-up: %v", err)
		}
		if len(got) != 2 || got["mail.example.com"] != child.ID || got["example.com"] != parent.ID {
			t.Errorf("verified among mail.example.com's names = %v, want mail.example.com %s and example.com %s", got, child.ID, parent.ID)
		}
		for _, name := range []string{"pending.example.com", "gone.example.com", "other.example.com"} {
			got, err := st.VerifiedDomainsNamed(ctx, org.ID, []string{name})
			if err != nil || len(got) != 0 {
				t.Errorf("%s: %v, %v; want nothing", name, got, err)
			}
		}
		if got, err := st.VerifiedDomainsNamed(ctx, org.ID, nil); err != nil || len(got) != 0 {
			t.Errorf("no names: %v, %v; want nothing", got, err)
		}
	})
}
