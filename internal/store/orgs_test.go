package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

func TestOrganizationRoundTrip(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)

		if n, err := st.CountOrganizations(ctx); err != nil || n != 0 {
			t.Fatalf("CountOrganizations on a new database = %d, %v; want 0 (D4's bootstrap relies on it)", n, err)
		}
		want := &carteiro.Organization{ID: uuid.NewString(), Name: "Acme Ltda", PasswordHash: "$argon2id$hash", TOTPSecret: "sealed", CreatedAt: baseTime}
		if err := st.CreateOrganization(ctx, want); err != nil {
			t.Fatalf("create: %v", err)
		}
		createOrg(t, st, "second")

		got, err := st.Organization(ctx, want.ID)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		if got.ID != want.ID || got.Name != want.Name || got.PasswordHash != want.PasswordHash || got.TOTPSecret != want.TOTPSecret {
			t.Errorf("read %+v, want %+v", got, want)
		}
		sameTime(t, "CreatedAt", got.CreatedAt, want.CreatedAt)

		if n, err := st.CountOrganizations(ctx); err != nil || n != 2 {
			t.Errorf("CountOrganizations = %d, %v; want 2", n, err)
		}
	})
}

func TestOrganizationErrors(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		o := createOrg(t, st, "acme")

		if _, err := st.Organization(ctx, uuid.NewString()); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown organization: err = %v, want ErrNotFound", err)
		}
		dup := &carteiro.Organization{ID: o.ID, Name: "again", CreatedAt: baseTime}
		if err := st.CreateOrganization(ctx, dup); !errors.Is(err, store.ErrConflict) {
			t.Errorf("duplicate id: err = %v, want ErrConflict", err)
		}
		if err := st.SetOrganizationReauth(ctx, uuid.NewString(), "h", "s"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("reauth of unknown organization: err = %v, want ErrNotFound", err)
		}
	})
}

// D8: the password hash and TOTP secret can be set and cleared.
func TestSetOrganizationReauth(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		o := createOrg(t, st, "acme")
		other := createOrg(t, st, "other")

		if err := st.SetOrganizationReauth(ctx, o.ID, "$argon2id$x", "sealed-totp"); err != nil {
			t.Fatalf("set: %v", err)
		}
		got, err := st.Organization(ctx, o.ID)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		if got.PasswordHash != "$argon2id$x" || got.TOTPSecret != "sealed-totp" || !got.NeedsReauth() {
			t.Errorf("after set: %+v", got)
		}
		if got, err := st.Organization(ctx, other.ID); err != nil || got.NeedsReauth() {
			t.Errorf("another organization changed: %+v, %v", got, err)
		}

		if err := st.SetOrganizationReauth(ctx, o.ID, "", ""); err != nil {
			t.Fatalf("clear: %v", err)
		}
		if got, err := st.Organization(ctx, o.ID); err != nil || got.NeedsReauth() {
			t.Errorf("after clear: %+v, %v", got, err)
		}
	})
}

// `carteiro org list`: every organization, oldest first, with its fields.
func TestListOrganizations(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		if orgs, err := st.ListOrganizations(ctx); err != nil || len(orgs) != 0 {
			t.Fatalf("ListOrganizations on a new database = %v, %v; want none", orgs, err)
		}
		newer := &carteiro.Organization{ID: uuid.NewString(), Name: "newer", TOTPSecret: "sealed", CreatedAt: baseTime.Add(time.Hour)}
		if err := st.CreateOrganization(ctx, newer); err != nil {
			t.Fatal(err)
		}
		older := createOrg(t, st, "older")
		orgs, err := st.ListOrganizations(ctx)
		if err != nil || len(orgs) != 2 {
			t.Fatalf("ListOrganizations = %v, %v; want 2", orgs, err)
		}
		if orgs[0].ID != older.ID || orgs[1].ID != newer.ID || orgs[1].Name != "newer" || orgs[1].TOTPSecret != "sealed" {
			t.Errorf("ListOrganizations = [%+v %+v], want older then newer", orgs[0], orgs[1])
		}
		sameTime(t, "CreatedAt", orgs[1].CreatedAt, newer.CreatedAt)
	})
}
