package app

import (
	"context"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/health"
)

// Health is POST /domains/:id/health's answer (D33). Recommendations
// carry message ids; the transport localizes them.
type Health struct {
	DomainID        string
	CheckedAt       time.Time
	Score           int
	DNS             carteiro.DomainChecks
	Listings        []health.Listing
	Metrics         health.Metrics
	Recommendations []health.Recommendation
}

// DomainHealth looks the domain's records up, asks the blocklists about
// the sending IPs and the domain, reads 30 days of counters and scores it.
func (a *App) DomainHealth(ctx context.Context, p *Principal, id string) (*Health, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	d, err := a.store.Domain(ctx, p.Org.ID, id)
	if err != nil {
		return nil, storeErr(err)
	}
	now := a.clock.Now()
	records := d.Records(a.cfg.BounceHost)
	checks := a.dns.Check(ctx, records)
	listings := health.CheckBlocklists(ctx, a.dns.Resolver, a.cfg.Blocklists, a.cfg.SendingIPs, d.Name)
	m := health.Metrics{WindowDays: health.DefaultWindowDays}
	rows, err := a.store.StatsHours(ctx, p.Org.ID, string(carteiro.ModeLive), "", d.ID, now.AddDate(0, 0, -m.WindowDays), now.Add(time.Hour))
	if err != nil {
		return nil, storeErr(err)
	}
	for _, r := range rows {
		m.Sent += r.Sent
		m.Bounced += r.Bounced
		m.Complained += r.Complained
	}
	score, recs := health.Evaluate(health.Input{Checks: checks, Records: records, Listings: listings, Metrics: m})
	return &Health{DomainID: d.ID, CheckedAt: now, Score: score, DNS: checks, Listings: listings, Metrics: m, Recommendations: recs}, nil
}
