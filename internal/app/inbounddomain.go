package app

import (
	"context"

	"github.com/carteiro/carteiro"
)

// InboundSwitch is the answer of POST /domains/:id/inbound (D75).
type InboundSwitch struct {
	DomainID string
	Enabled  bool
	MX       carteiro.DNSRecord
}

// domainRecords are the records d publishes: D31's, and the inbound MX
// while inbound is on (D75).
func (a *App) domainRecords(d *carteiro.Domain) []carteiro.DNSRecord {
	return d.RecordsWithInbound(a.cfg.BounceHost, a.inboundHost())
}

// inboundHost is the MX target of D75: CARTEIRO_INBOUND_HOST, else the
// bounce host.
func (a *App) inboundHost() string {
	if a.cfg.InboundHost != "" {
		return a.cfg.InboundHost
	}
	return a.cfg.BounceHost
}

// SetDomainInbound turns receiving mail for a domain on or off (D75). Turning
// it on again keeps the first time it was turned on, which decides between
// organizations that registered the same name (docs/inbound.md).
func (a *App) SetDomainInbound(ctx context.Context, p *Principal, id string, enabled bool) (*InboundSwitch, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	d, err := a.store.Domain(ctx, p.Org.ID, id)
	if err != nil {
		return nil, storeErr(err)
	}
	switch {
	case enabled && d.InboundEnabledAt == nil:
		now := a.clock.Now()
		d.InboundEnabledAt = &now
	case !enabled:
		d.InboundEnabledAt = nil
	}
	if err := a.store.SetDomainInbound(ctx, p.Org.ID, id, d.InboundEnabledAt); err != nil {
		return nil, storeErr(err)
	}
	return &InboundSwitch{DomainID: d.ID, Enabled: enabled, MX: d.InboundMX(a.inboundHost())}, nil
}
