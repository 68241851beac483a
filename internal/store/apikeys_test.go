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

// checkKey fails unless got is want after a round trip.
func checkKey(t *testing.T, got, want *carteiro.APIKey) {
	t.Helper()
	if got.ID != want.ID || got.OrgID != want.OrgID || got.Name != want.Name || got.Mode != want.Mode ||
		got.Permission != want.Permission || got.Domain != want.Domain || got.Hash != want.Hash || got.Prefix != want.Prefix {
		t.Errorf("key = %+v, want %+v", got, want)
	}
	sameTime(t, "CreatedAt", got.CreatedAt, want.CreatedAt)
	sameTimePtr(t, "RevokedAt", got.RevokedAt, want.RevokedAt)
}

func TestAPIKeyRoundTrip(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "acme")

		want := newKey(org.ID, "sending key", baseTime)
		want.Mode = carteiro.ModeTest
		want.Permission = carteiro.PermissionSending
		want.Domain = "mail.example.com"
		if err := st.CreateAPIKey(ctx, want); err != nil {
			t.Fatalf("create: %v", err)
		}

		got, gotOrg, err := st.KeyWithOrganization(ctx, want.Hash)
		if err != nil {
			t.Fatalf("by hash: %v", err)
		}
		checkKey(t, got, want)
		if gotOrg.ID != org.ID || gotOrg.Name != org.Name {
			t.Errorf("the key's organization = %+v, want %+v", gotOrg, org)
		}
		sameTime(t, "the key's organization's CreatedAt", gotOrg.CreatedAt, org.CreatedAt)

		got, err = st.APIKey(ctx, want.ID)
		if err != nil {
			t.Fatalf("by id: %v", err)
		}
		checkKey(t, got, want)

		// A key created already revoked keeps that time.
		revoked := newKey(org.ID, "old", baseTime)
		revoked.RevokedAt = ptr(baseTime.Add(time.Hour))
		if err := st.CreateAPIKey(ctx, revoked); err != nil {
			t.Fatalf("create revoked: %v", err)
		}
		if got, err := st.APIKey(ctx, revoked.ID); err != nil {
			t.Fatalf("read revoked: %v", err)
		} else {
			checkKey(t, got, revoked)
		}
	})
}

func TestAPIKeyLookupErrors(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "acme")
		k := newKey(org.ID, "k", baseTime)
		if err := st.CreateAPIKey(ctx, k); err != nil {
			t.Fatalf("create: %v", err)
		}

		if _, _, err := st.KeyWithOrganization(ctx, carteiro.HashKey("svc_live_unknown")); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown hash: err = %v, want ErrNotFound", err)
		}
		if _, err := st.APIKey(ctx, uuid.NewString()); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown id: err = %v, want ErrNotFound", err)
		}

		sameHash := newKey(org.ID, "copy", baseTime)
		sameHash.Hash = k.Hash
		if err := st.CreateAPIKey(ctx, sameHash); !errors.Is(err, store.ErrConflict) {
			t.Errorf("duplicate hash: err = %v, want ErrConflict", err)
		}
		sameID := newKey(org.ID, "copy", baseTime)
		sameID.ID = k.ID
		if err := st.CreateAPIKey(ctx, sameID); !errors.Is(err, store.ErrConflict) {
			t.Errorf("duplicate id: err = %v, want ErrConflict", err)
		}
		orphan := newKey(uuid.NewString(), "orphan", baseTime)
		if err := st.CreateAPIKey(ctx, orphan); err == nil {
			t.Error("a key of an unknown organization was accepted; the foreign key is not enforced")
		}
	})
}

func TestListAPIKeysOldestFirst(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "acme")
		other := createOrg(t, st, "other")

		if keys, err := st.ListAPIKeys(ctx, org.ID); err != nil || len(keys) != 0 {
			t.Fatalf("no keys yet: got %d keys, %v", len(keys), err)
		}

		// Inserted out of order; two share a creation time, so id breaks the tie.
		third := newKey(org.ID, "third", baseTime.Add(2*time.Second))
		first := newKey(org.ID, "first", baseTime)
		second := newKey(org.ID, "second", baseTime.Add(time.Microsecond))
		tieA := newKey(org.ID, "tie a", baseTime.Add(2*time.Second))
		tieA.ID, third.ID = "00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"
		foreign := newKey(other.ID, "foreign", baseTime.Add(time.Millisecond))
		for _, k := range []*carteiro.APIKey{third, first, foreign, tieA, second} {
			if err := st.CreateAPIKey(ctx, k); err != nil {
				t.Fatalf("create %s: %v", k.Name, err)
			}
		}

		keys, err := st.ListAPIKeys(ctx, org.ID)
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		var names []string
		for _, k := range keys {
			names = append(names, k.Name)
		}
		if want := []string{"first", "second", "tie a", "third"}; !slices.Equal(names, want) {
			t.Errorf("ListAPIKeys order = %v, want %v", names, want)
		}
		if len(keys) == 4 {
			checkKey(t, keys[0], first)
		}
	})
}

func TestRevokeAPIKeyKeepsFirstTime(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "acme")
		k := newKey(org.ID, "k", baseTime)
		untouched := newKey(org.ID, "untouched", baseTime)
		for _, key := range []*carteiro.APIKey{k, untouched} {
			if err := st.CreateAPIKey(ctx, key); err != nil {
				t.Fatalf("create: %v", err)
			}
		}

		firstRevoke := baseTime.Add(time.Hour)
		if err := st.RevokeAPIKey(ctx, k.ID, firstRevoke); err != nil {
			t.Fatalf("revoke: %v", err)
		}
		if err := st.RevokeAPIKey(ctx, k.ID, firstRevoke.Add(time.Hour)); err != nil {
			t.Fatalf("revoke again: %v", err)
		}
		got, err := st.APIKey(ctx, k.ID)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		sameTimePtr(t, "RevokedAt after two revocations", got.RevokedAt, &firstRevoke)

		// Authentication finds revoked keys too, to answer INVALID_API_KEY (D11).
		byHash, _, err := st.KeyWithOrganization(ctx, k.Hash)
		if err != nil {
			t.Fatalf("revoked key by hash: %v", err)
		}
		sameTimePtr(t, "RevokedAt by hash", byHash.RevokedAt, &firstRevoke)

		if got, err := st.APIKey(ctx, untouched.ID); err != nil || got.RevokedAt != nil {
			t.Errorf("another key was revoked: %+v, %v", got, err)
		}
		if err := st.RevokeAPIKey(ctx, uuid.NewString(), firstRevoke); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("revoke unknown id: err = %v, want ErrNotFound", err)
		}
	})
}
