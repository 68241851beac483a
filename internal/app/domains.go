package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/dkim"
	"github.com/carteiro/carteiro/internal/store"
)

// DomainCheckJob re-checks one domain's DNS records (D32).
type DomainCheckJob struct {
	DomainID string `json:"domainId"`
}

// Kind names the job.
func (DomainCheckJob) Kind() string { return "domain_check" }

// DomainSweepJob is the periodic job that finds the domains due for the
// daily re-check or the 72-hour rule and enqueues a DomainCheckJob for each.
type DomainSweepJob struct{}

// Kind names the job.
func (DomainSweepJob) Kind() string { return "domain_sweep" }

// RecheckInterval is how often a verified domain's records are looked up again.
const RecheckInterval = 24 * time.Hour

// sweepBatch bounds the domains one sweep handles; the next sweep takes the rest.
const sweepBatch = 500

// NewDomain is what POST /domains returns.
type NewDomain struct {
	Domain  *carteiro.Domain
	Records []carteiro.DNSRecord
}

// CreateDomain registers a domain with a fresh RSA-2048 DKIM key (D31). The
// private key is sealed with the service secret before it is stored.
func (a *App) CreateDomain(ctx context.Context, p *Principal, name string) (*NewDomain, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	name = carteiro.NormalizeDomainName(name)
	if !carteiro.ValidDomainName(name) {
		return nil, carteiro.Invalid("name", "invalid_domain")
	}
	if existing, err := a.store.DomainByName(ctx, p.Org.ID, name); err == nil {
		return nil, carteiro.Conflict(existing.ID)
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, storeErr(err)
	}
	privPEM, pubB64, err := dkim.GenerateKey()
	if err != nil {
		return nil, &carteiro.Error{Code: carteiro.CodeInternal, Err: fmt.Errorf("dkim key: %w", err)}
	}
	sealed, err := a.box.Seal(privPEM)
	if err != nil {
		return nil, &carteiro.Error{Code: carteiro.CodeInternal, Err: fmt.Errorf("seal dkim key: %w", err)}
	}
	d := &carteiro.Domain{
		ID: uuid.Must(uuid.NewV7()).String(), OrgID: p.Org.ID, Name: name, Status: carteiro.DomainPending,
		DKIMSelector: a.cfg.DKIMSelector, DKIMPublicKey: pubB64, DKIMPrivateKey: sealed,
		OwnershipToken: carteiro.RandomBase62(32), CreatedAt: a.clock.Now(),
	}
	if err := a.store.CreateDomain(ctx, d); err != nil {
		if errors.Is(err, store.ErrConflict) {
			// Lost a race with a concurrent create of the same name.
			if existing, err := a.store.DomainByName(ctx, p.Org.ID, name); err == nil {
				return nil, carteiro.Conflict(existing.ID)
			}
			return nil, carteiro.Conflict("")
		}
		return nil, storeErr(err)
	}
	return &NewDomain{Domain: d, Records: a.domainRecords(d)}, nil
}

// ListDomains returns the organization's live domains.
func (a *App) ListDomains(ctx context.Context, p *Principal) ([]*carteiro.Domain, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	ds, err := a.store.ListDomains(ctx, p.Org.ID)
	return ds, storeErr(err)
}

// GetDomain returns one domain with the records to publish.
func (a *App) GetDomain(ctx context.Context, p *Principal, id string) (*NewDomain, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	d, err := a.store.Domain(ctx, p.Org.ID, id)
	if err != nil {
		return nil, storeErr(err)
	}
	return &NewDomain{Domain: d, Records: a.domainRecords(d)}, nil
}

// Verification is the answer of POST /domains/:id/verify (D32).
type Verification struct {
	Domain *carteiro.Domain
	Checks carteiro.DomainChecks
}

// VerifyDomain looks the records up now and moves the domain's status.
func (a *App) VerifyDomain(ctx context.Context, p *Principal, id string) (*Verification, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	d, err := a.store.Domain(ctx, p.Org.ID, id)
	if err != nil {
		return nil, storeErr(err)
	}
	return a.checkDomain(ctx, d)
}

func (a *App) checkDomain(ctx context.Context, d *carteiro.Domain) (*Verification, error) {
	records := a.domainRecords(d)
	checks := a.dns.Check(ctx, records)
	d.ApplyCheck(checks.Outcome(records), a.clock.Now())
	if err := a.store.UpdateDomainCheck(ctx, d); err != nil {
		return nil, storeErr(err)
	}
	return &Verification{Domain: d, Checks: checks}, nil
}

// DeleteDomain soft-deletes a domain (D35) after the reauthentication of D8:
// for a dashboard user, the user's own password and code (owners only, D73).
func (a *App) DeleteDomain(ctx context.Context, p *Principal, id string, r Reauth) error {
	if err := p.requireFull(); err != nil {
		return err
	}
	if err := p.requireOwner(); err != nil {
		return err
	}
	if _, err := a.store.Domain(ctx, p.Org.ID, id); err != nil {
		return storeErr(err)
	}
	check := func() error { return a.checkReauth(ctx, p.Org, r) }
	if p.User != nil {
		check = func() error { return a.checkUserReauth(ctx, p.User, r) }
	}
	if err := check(); err != nil {
		return err
	}
	return storeErr(a.store.SoftDeleteDomain(ctx, p.Org.ID, id, a.clock.Now()))
}

// SweepDomains enqueues a check for every domain due one: verified domains
// not checked for RecheckInterval, pending ones past the 72-hour deadline
// (D32). Jobs are unique per domain, so overlapping sweeps add nothing.
func (a *App) SweepDomains(ctx context.Context) (int, error) {
	now := a.clock.Now()
	due, err := a.store.DomainsDue(ctx, now.Add(-carteiro.UnverifiedDeadline), now.Add(-RecheckInterval), sweepBatch)
	if err != nil {
		return 0, storeErr(err)
	}
	if len(due) == 0 {
		return 0, nil
	}
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		for _, d := range due {
			if err := a.queue.EnqueueTx(ctx, tx, DomainCheckJob{DomainID: d.ID}, JobOpts{UniqueByArgs: true}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, storeErr(err)
	}
	return len(due), nil
}

// RecheckDomain is the worker side of DomainCheckJob. A pending domain past
// its deadline fails without a look-up only if the look-up fails too: a late
// but correct publication still verifies it (D32).
func (a *App) RecheckDomain(ctx context.Context, id string) error {
	d, err := a.store.DomainByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil // deleted since it was enqueued
	}
	if err != nil {
		return storeErr(err)
	}
	before := d.Status
	v, err := a.checkDomain(ctx, d)
	if err != nil {
		return err
	}
	if v.Domain.Status != before {
		a.logger.InfoContext(ctx, "domain status changed", "domain_id", d.ID, "domain", d.Name, "from", before, "to", v.Domain.Status)
	}
	return nil
}
