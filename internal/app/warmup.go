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

// takeWarmup counts e against its domain's daily quota, in the accepting
// transaction; over the quota is a 429 (D11, D34). Test-mode and sandbox
// emails never count (D7), nor do verified senders without a domain.
func (a *App) takeWarmup(ctx context.Context, tx *store.Tx, e *carteiro.Email) error {
	if !a.cfg.Warmup || e.Sandbox || e.Mode == carteiro.ModeTest || e.DomainID == "" {
		return nil
	}
	d, err := tx.DomainByID(ctx, e.DomainID)
	if err != nil || d.WarmupStartedAt == nil {
		return err
	}
	now := a.clock.Now()
	quota := warmupQuota(warmupDay(*d.WarmupStartedAt, now))
	if quota == 0 {
		return nil
	}
	ok, err := tx.TakeWarmup(ctx, d.ID, utcDay(now).Format(time.DateOnly), 1, quota)
	if err != nil {
		return err
	}
	if !ok {
		return &carteiro.Error{Code: carteiro.CodeWarmupQuotaExceeded, Details: map[string]any{
			"domainId": d.ID, "dailyQuota": quota, "resetAt": utcDay(now).Add(24 * time.Hour).Format(time.RFC3339),
		}}
	}
	return nil
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
