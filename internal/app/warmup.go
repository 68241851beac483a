package app

import (
	"context"
	"errors"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// warmupQuotas are D34's daily quotas by warmup day; past the last day a
// domain is warmed and unlimited.
var warmupQuotas = []int{50, 100, 200, 400, 750, 1500, 3000, 5000, 8000, 12000, 20000, 30000, 50000, 75000, 100000}

// WarmupStatus is GET /domains/:id/warmup (2.5).
type WarmupStatus struct {
	DomainID         string
	CurrentDay       int
	DailyQuota       int // 0 means unlimited (warmed)
	SentToday        int
	RemainingToday   int
	QuotaUsedPercent float64
	LastSendDate     string // YYYY-MM-DD or ""
}

// utcDay is the UTC calendar day of t: quotas reset at 00:00 UTC (D34).
func utcDay(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// warmupDay is the 1-based warmup day at now for a warmup started at start.
func warmupDay(start, now time.Time) int {
	return int(utcDay(now).Sub(utcDay(start))/(24*time.Hour)) + 1
}

// warmupQuota is the day's quota, 0 when warmed (unlimited).
func warmupQuota(day int) int {
	if day < 1 {
		day = 1
	}
	if day > len(warmupQuotas) {
		return 0
	}
	return warmupQuotas[day-1]
}

// warmupCharge is what counting e against its domain's quota takes today
// (D34), nil when it is not counted: test-mode and sandbox emails, emails
// without a domain, domains not in warmup and warmed domains.
func (a *App) warmupCharge(e *carteiro.Email, domain store.VerifiedDomain) *store.WarmupCharge {
	if !a.cfg.Warmup || e.Sandbox || e.Mode == carteiro.ModeTest || e.DomainID == "" || domain.WarmupStartedAt == nil {
		return nil
	}
	now := a.clock.Now()
	quota := warmupQuota(warmupDay(*domain.WarmupStartedAt, now))
	if quota == 0 {
		return nil
	}
	return &store.WarmupCharge{DomainID: e.DomainID, Day: utcDay(now).Format(time.DateOnly), Quota: quota}
}

// warmupExceeded is the 429 of an email past its domain's quota (D11,
// D34): the quota, and when it resets (the next UTC midnight).
func warmupExceeded(c store.WarmupCharge) error {
	day, _ := time.Parse(time.DateOnly, c.Day)
	return &carteiro.Error{Code: carteiro.CodeWarmupQuotaExceeded, Details: map[string]any{"domainId": c.DomainID, "dailyQuota": c.Quota,
		"resetAt": day.Add(24 * time.Hour).Format(time.RFC3339)}}
}

// warmupLedger counts a broadcast step's emails against their domains'
// quotas (store.WarmupLedger), reading each domain once, in the
// transaction.
type warmupLedger struct {
	store.WarmupLedger
	charges map[string]*store.WarmupCharge // by domain id
}

// take counts e; over the quota is warmupExceeded.
func (l *warmupLedger) take(ctx context.Context, a *App, tx *store.Tx, e *carteiro.Email) error {
	if !a.cfg.Warmup || e.Sandbox || e.Mode == carteiro.ModeTest || e.DomainID == "" {
		return nil
	}
	c, ok := l.charges[e.DomainID]
	if !ok {
		d, err := tx.DomainByID(ctx, e.DomainID)
		if err != nil {
			return err
		}
		c = a.warmupCharge(e, store.VerifiedDomain{ID: d.ID, WarmupStartedAt: d.WarmupStartedAt})
		if l.charges == nil {
			l.charges = map[string]*store.WarmupCharge{}
		}
		l.charges[e.DomainID] = c
	}
	if c == nil {
		return nil
	}
	fits, err := l.Take(ctx, tx, *c)
	if err != nil {
		return err
	}
	if !fits {
		return warmupExceeded(*c)
	}
	return nil
}

// flush writes what the transaction counted.
func (l *warmupLedger) flush(ctx context.Context, tx *store.Tx) error {
	return l.Flush(ctx, tx)
}

// Warmup returns a domain's warmup status, or nil when warmup has not
// started (the domain was never verified, or warmup is off).
func (a *App) Warmup(ctx context.Context, p *Principal, domainID string) (*WarmupStatus, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	d, err := a.store.Domain(ctx, p.Org.ID, domainID)
	if err != nil {
		return nil, storeErr(err)
	}
	if !a.cfg.Warmup || d.WarmupStartedAt == nil {
		return nil, nil
	}
	now := a.clock.Now()
	day := warmupDay(*d.WarmupStartedAt, now)
	st := &WarmupStatus{DomainID: d.ID, CurrentDay: day, DailyQuota: warmupQuota(day)}
	if st.SentToday, err = a.store.WarmupSent(ctx, d.ID, utcDay(now).Format(time.DateOnly)); err != nil {
		return nil, storeErr(err)
	}
	if st.LastSendDate, err = a.store.LastWarmupDay(ctx, d.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, storeErr(err)
	}
	if st.DailyQuota > 0 {
		st.RemainingToday = max(0, st.DailyQuota-st.SentToday)
		st.QuotaUsedPercent = min(100, float64(st.SentToday)*100/float64(st.DailyQuota))
	}
	return st, nil
}
