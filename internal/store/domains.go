package store

import (
	"context"
	"fmt"
	"time"

	"github.com/carteiro/carteiro"
)

const domainColumns = `id, org_id, name, status, dkim_selector, dkim_public_key, dkim_private_key, ownership_token, verified_at, last_check_at, created_at, deleted_at, warmup_started_at, inbound_enabled_at`

func scanDomain(r row) (*carteiro.Domain, error) {
	var d carteiro.Domain
	var verified, checked, deleted, warmup, inbound *int64
	var created int64
	if err := r.Scan(&d.ID, &d.OrgID, &d.Name, &d.Status, &d.DKIMSelector, &d.DKIMPublicKey, &d.DKIMPrivateKey,
		&d.OwnershipToken, &verified, &checked, &created, &deleted, &warmup, &inbound); err != nil {
		return nil, err
	}
	d.InboundEnabledAt = fromMicrosPtr(inbound)
	d.WarmupStartedAt = fromMicrosPtr(warmup)
	d.VerifiedAt = fromMicrosPtr(verified)
	d.LastCheckAt = fromMicrosPtr(checked)
	d.CreatedAt = fromMicros(created)
	d.DeletedAt = fromMicrosPtr(deleted)
	return &d, nil
}

func scanDomains(rs rows, err error) ([]*carteiro.Domain, error) {
	if err != nil {
		return nil, fmt.Errorf("store: list domains: %w", classify(err))
	}
	defer rs.Close()
	var out []*carteiro.Domain
	for rs.Next() {
		d, err := scanDomain(rs)
		if err != nil {
			return nil, fmt.Errorf("store: scan domain: %w", classify(err))
		}
		out = append(out, d)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("store: list domains: %w", classify(err))
	}
	return out, nil
}

// CreateDomain inserts d; a live domain of the same name in the organization
// is ErrConflict.
func (q *Queries) CreateDomain(ctx context.Context, d *carteiro.Domain) error {
	_, err := q.exec(ctx, `INSERT INTO domains (`+domainColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		d.ID, d.OrgID, d.Name, string(d.Status), d.DKIMSelector, d.DKIMPublicKey, d.DKIMPrivateKey, d.OwnershipToken,
		microsPtr(d.VerifiedAt), microsPtr(d.LastCheckAt), micros(d.CreatedAt), microsPtr(d.DeletedAt), microsPtr(d.WarmupStartedAt), microsPtr(d.InboundEnabledAt))
	if err != nil {
		return fmt.Errorf("store: create domain %s: %w", d.Name, classify(err))
	}
	return nil
}

// DomainByName returns the live domain of an organization with that name.
func (q *Queries) DomainByName(ctx context.Context, orgID, name string) (*carteiro.Domain, error) {
	d, err := scanDomain(q.queryRow(ctx, `SELECT `+domainColumns+` FROM domains WHERE org_id = ? AND name = ? AND deleted_at IS NULL`, orgID, name))
	if err != nil {
		return nil, fmt.Errorf("store: domain %s: %w", name, classify(err))
	}
	return d, nil
}

// Domain returns a live domain of the organization; deleted domains and
// other organizations' domains are ErrNotFound (D35, D11).
func (q *Queries) Domain(ctx context.Context, orgID, id string) (*carteiro.Domain, error) {
	d, err := scanDomain(q.queryRow(ctx, `SELECT `+domainColumns+` FROM domains WHERE id = ? AND org_id = ? AND deleted_at IS NULL`, id, orgID))
	if err != nil {
		return nil, fmt.Errorf("store: domain %s: %w", id, classify(err))
	}
	return d, nil
}

// DomainByID returns a live domain whatever its organization (workers).
func (q *Queries) DomainByID(ctx context.Context, id string) (*carteiro.Domain, error) {
	d, err := scanDomain(q.queryRow(ctx, `SELECT `+domainColumns+` FROM domains WHERE id = ? AND deleted_at IS NULL`, id))
	if err != nil {
		return nil, fmt.Errorf("store: domain %s: %w", id, classify(err))
	}
	return d, nil
}

// VerifiedDomain is a live, verified domain as the sending domain's
// look-up needs it.
type VerifiedDomain struct {
	ID              string
	WarmupStartedAt *time.Time // nil: not in warmup (D34)
}

// VerifiedDomainsNamed returns the ids of the organization's live,
// verified domains whose names are among names, by name
// (VerifiedSendingDomains).
func (s *Store) VerifiedDomainsNamed(ctx context.Context, orgID string, names []string) (map[string]string, error) {
	found, err := s.VerifiedSendingDomains(ctx, orgID, names)
	if err != nil {
		return nil, err
	}
	ids := make(map[string]string, len(found))
	for name, d := range found {
		ids[name] = d.ID
	}
	return ids, nil
}

// VerifiedSendingDomains returns the organization's live, verified
// domains whose names are among names, by name: the sending domain's
// look-up, which reads only the rows it may use, with the warmup start its
// quota is worked out from. On PostgreSQL concurrent callers share one
// statement (readbatch.go).
func (s *Store) VerifiedSendingDomains(ctx context.Context, orgID string, names []string) (map[string]VerifiedDomain, error) {
	if len(names) == 0 {
		return map[string]VerifiedDomain{}, nil
	}
	keys := make([]orgDomainName, len(names))
	for i, n := range names {
		keys[i] = orgDomainName{orgID, n}
	}
	var found map[orgDomainName]VerifiedDomain
	var err error
	if s.domainReads != nil {
		found, err = s.domainReads.get(ctx, keys)
	} else {
		found, err = s.verifiedDomains(ctx, keys)
	}
	if err != nil {
		return nil, err
	}
	byName := make(map[string]VerifiedDomain, len(found))
	for k, d := range found {
		byName[k.name] = d
	}
	return byName, nil
}

// orgDomainName is a domain name within an organization.
type orgDomainName struct{ org, name string }

// verifiedDomains reads the live, verified domains among keys, by key. It
// reads the names of every organization asked for and keeps the pairs
// asked for: one statement for any mix of organizations, at the cost of a
// few rows a batch of callers did not ask for.
func (q *Queries) verifiedDomains(ctx context.Context, keys []orgDomainName) (map[orgDomainName]VerifiedDomain, error) {
	found := map[orgDomainName]VerifiedDomain{}
	if len(keys) == 0 {
		return found, nil
	}
	wanted := make(map[orgDomainName]bool, len(keys))
	var orgs, names []any
	seenOrg, seenName := map[string]bool{}, map[string]bool{}
	for _, k := range keys {
		wanted[k] = true
		if !seenOrg[k.org] {
			seenOrg[k.org] = true
			orgs = append(orgs, k.org)
		}
		if !seenName[k.name] {
			seenName[k.name] = true
			names = append(names, k.name)
		}
	}
	args := append([]any{string(carteiro.DomainVerified)}, orgs...)
	args = append(args, names...)
	rs, err := q.query(ctx, `SELECT id, org_id, name, warmup_started_at FROM domains WHERE deleted_at IS NULL AND status = ?
		AND org_id IN (`+placeholders(len(orgs))+`) AND name IN (`+placeholders(len(names))+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: verified domains: %w", classify(err))
	}
	defer rs.Close()
	for rs.Next() {
		var id string
		var k orgDomainName
		var warmup *int64
		if err := rs.Scan(&id, &k.org, &k.name, &warmup); err != nil {
			return nil, fmt.Errorf("store: verified domains: %w", classify(err))
		}
		if wanted[k] {
			found[k] = VerifiedDomain{ID: id, WarmupStartedAt: fromMicrosPtr(warmup)}
		}
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("store: verified domains: %w", classify(err))
	}
	return found, nil
}

// ListDomains returns the live domains of an organization, newest first.
func (q *Queries) ListDomains(ctx context.Context, orgID string) ([]*carteiro.Domain, error) {
	return scanDomains(q.query(ctx, `SELECT `+domainColumns+` FROM domains WHERE org_id = ? AND deleted_at IS NULL ORDER BY created_at DESC, id DESC`, orgID))
}

// UpdateDomainCheck stores the outcome of a DNS check.
func (q *Queries) UpdateDomainCheck(ctx context.Context, d *carteiro.Domain) error {
	n, err := q.exec(ctx, `UPDATE domains SET status = ?, verified_at = ?, last_check_at = ?, warmup_started_at = ? WHERE id = ? AND deleted_at IS NULL`,
		string(d.Status), microsPtr(d.VerifiedAt), microsPtr(d.LastCheckAt), microsPtr(d.WarmupStartedAt), d.ID)
	if err != nil {
		return fmt.Errorf("store: update domain %s: %w", d.ID, classify(err))
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// SoftDeleteDomain marks a domain deleted (D35).
func (q *Queries) SoftDeleteDomain(ctx context.Context, orgID, id string, at time.Time) error {
	n, err := q.exec(ctx, `UPDATE domains SET deleted_at = ? WHERE id = ? AND org_id = ? AND deleted_at IS NULL`, micros(at), id, orgID)
	if err != nil {
		return fmt.Errorf("store: delete domain %s: %w", id, classify(err))
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// DomainsDue lists the live domains the periodic sweep must look at (D32):
// pending ones created before staleBefore (to fail them), and verified ones
// last checked before checkBefore (the daily re-check). At most limit rows.
func (q *Queries) DomainsDue(ctx context.Context, staleBefore, checkBefore time.Time, limit int) ([]*carteiro.Domain, error) {
	return scanDomains(q.query(ctx, `SELECT `+domainColumns+` FROM domains
		WHERE deleted_at IS NULL AND (
			(status = 'pending' AND created_at <= ?) OR
			(status = 'verified' AND (last_check_at IS NULL OR last_check_at <= ?)))
		ORDER BY created_at, id LIMIT ?`, micros(staleBefore), micros(checkBefore), limit))
}

// DomainNameRegistered reports whether any organization has a live domain
// with that name (the inbound listener accepts bounces.<name>, D55).
func (q *Queries) DomainNameRegistered(ctx context.Context, name string) (bool, error) {
	var n int
	if err := q.queryRow(ctx, `SELECT COUNT(*) FROM domains WHERE name = ? AND deleted_at IS NULL`, name).Scan(&n); err != nil {
		return false, fmt.Errorf("store: domain name %s: %w", name, classify(err))
	}
	return n > 0, nil
}

// DomainNamedElsewhere reports whether an organization other than orgID has
// a live domain (any status) named one of names (D59: a single sender on
// another organization's domain is refused).
func (q *Queries) DomainNamedElsewhere(ctx context.Context, orgID string, names []string) (bool, error) {
	if len(names) == 0 {
		return false, nil
	}
	args := make([]any, 0, len(names)+1)
	args = append(args, orgID)
	for _, n := range names {
		args = append(args, n)
	}
	var n int
	err := q.queryRow(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM domains WHERE deleted_at IS NULL AND org_id <> ?
		AND name IN (`+placeholders(len(names))+`) LIMIT 1) AS found`, args...).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("store: domains named elsewhere: %w", classify(err))
	}
	return n > 0, nil
}

// SetDomainInbound turns receiving on (at, D75) or off (nil) for a live
// domain of the organization.
func (q *Queries) SetDomainInbound(ctx context.Context, orgID, id string, at *time.Time) error {
	n, err := q.exec(ctx, `UPDATE domains SET inbound_enabled_at = ? WHERE id = ? AND org_id = ? AND deleted_at IS NULL`,
		microsPtr(at), id, orgID)
	if err != nil {
		return fmt.Errorf("store: set inbound of domain %s: %w", id, classify(err))
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// InboundDomain returns the live, verified domain with that name whose
// inbound is on; when several organizations qualify, the one that turned
// it on first (docs/inbound.md). ErrNotFound when none does.
func (q *Queries) InboundDomain(ctx context.Context, name string) (*carteiro.Domain, error) {
	d, err := scanDomain(q.queryRow(ctx, `SELECT `+domainColumns+` FROM domains
		WHERE name = ? AND inbound_enabled_at IS NOT NULL AND deleted_at IS NULL AND status = 'verified'
		ORDER BY inbound_enabled_at, id LIMIT 1`, name))
	if err != nil {
		return nil, fmt.Errorf("store: inbound domain %s: %w", name, classify(err))
	}
	return d, nil
}
