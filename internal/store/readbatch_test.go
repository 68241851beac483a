package store_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

// Concurrent look-ups of keys and sending domains, which PostgreSQL answers
// from shared statements (readbatch.go), each get exactly their own answer:
// their key and organization, not found for an unknown key, and only their
// own organization's verified domains, even when another organization in
// the same statement has a domain of the same name.
func TestConcurrentLookupsGetTheirOwnAnswers(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		const orgs = 8
		type tenant struct {
			org    *carteiro.Organization
			key    *carteiro.APIKey
			domain *carteiro.Domain // verified; every other tenant also has one of this name, unverified
		}
		tenants := make([]tenant, orgs)
		for i := range tenants {
			org := createOrg(t, st, fmt.Sprintf("org %d", i))
			key := newKey(org.ID, "k", baseTime)
			if err := st.CreateAPIKey(ctx, key); err != nil {
				t.Fatalf("create key: %v", err)
			}
			tenants[i] = tenant{org: org, key: key}
		}
		for i := range tenants {
			for j := range tenants {
				d := createDomain(t, st, tenants[j].org.ID, fmt.Sprintf("t%d.example", i), baseTime)
				if i == j {
					d.Status, d.VerifiedAt = carteiro.DomainVerified, ptr(baseTime)
					if err := st.UpdateDomainCheck(ctx, d); err != nil {
						t.Fatalf("verify: %v", err)
					}
					tenants[i].domain = d
				}
			}
		}

		const rounds = 25
		var wg sync.WaitGroup
		errs := make(chan error, orgs*rounds*3)
		for r := range rounds {
			for i, tn := range tenants {
				wg.Add(3)
				go func() {
					defer wg.Done()
					k, o, err := st.KeyWithOrganization(ctx, tn.key.Hash)
					if err != nil || k.ID != tn.key.ID || o.ID != tn.org.ID {
						errs <- fmt.Errorf("key of tenant %d: %+v %+v %v", i, k, o, err)
					}
				}()
				go func() {
					defer wg.Done()
					unknown := carteiro.HashKey(fmt.Sprintf("svc_live_unknown_%d_%d", r, i))
					if _, _, err := st.KeyWithOrganization(ctx, unknown); !errors.Is(err, store.ErrNotFound) {
						errs <- fmt.Errorf("unknown key: %v, want not found", err)
					}
				}()
				go func() {
					defer wg.Done()
					names := make([]string, orgs)
					for j := range names {
						names[j] = fmt.Sprintf("t%d.example", j)
					}
					got, err := st.VerifiedDomainsNamed(ctx, tn.org.ID, names)
					if err != nil || len(got) != 1 || got[tn.domain.Name] != tn.domain.ID {
						errs <- fmt.Errorf("domains of tenant %d: %v %v, want only %s", i, got, err, tn.domain.Name)
					}
				}()
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
}
