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

// warmupLedger counts the emails of one transaction against their
// domains' daily quotas (D34) with three statements per domain instead of
// three per email: the first email of a domain reads the domain and locks
// its day's count, later ones are counted in memory, and flush writes each
// domain's count once. A ledger belongs to one transaction (a request's
// accepts, a broadcast step) and must be flushed in it.
type warmupLedger struct {
	accounts map[string]*warmupAccount // by domain id
}

// warmupAccount is one domain's room for the day.
type warmupAccount struct {
	day          string // YYYY-MM-DD, UTC
	quota        int    // 0: the domain is warmed (unlimited) or not in warmup
	sent, taken  int    // counted before this transaction; counted by it
	limitDetails map[string]any
}

// take counts e against its domain's quota; over the quota is a 429
// (D11, D34). Test-mode and sandbox emails, emails without a domain and
// warmed domains are not counted.
func (l *warmupLedger) take(ctx context.Context, a *App, tx *store.Tx, e *carteiro.Email) error {
	if !a.cfg.Warmup || e.Sandbox || e.Mode == carteiro.ModeTest || e.DomainID == "" {
		return nil
	}
	acc := l.accounts[e.DomainID]
	if acc == nil {
		var err error
		if acc, err = a.openWarmupAccount(ctx, tx, e.DomainID); err != nil {
			return err
		}
		if l.accounts == nil {
			l.accounts = map[string]*warmupAccount{}
		}
		l.accounts[e.DomainID] = acc
	}
	if acc.quota == 0 {
		return nil
	}
	if acc.sent+acc.taken+1 > acc.quota {
		return &carteiro.Error{Code: carteiro.CodeWarmupQuotaExceeded, Details: acc.limitDetails}
	}
	acc.taken++
	return nil
}

// openWarmupAccount reads a domain's quota for today and, when it has one,
// locks and reads the day's count.
func (a *App) openWarmupAccount(ctx context.Context, tx *store.Tx, domainID string) (*warmupAccount, error) {
	d, err := tx.DomainByID(ctx, domainID)
	if err != nil {
		return nil, err
	}
	acc := &warmupAccount{}
	if d.WarmupStartedAt == nil {
		return acc, nil
	}
	now := a.clock.Now()
	acc.quota = warmupQuota(warmupDay(*d.WarmupStartedAt, now))
	if acc.quota == 0 {
		return acc, nil
	}
	acc.day = utcDay(now).Format(time.DateOnly)
	acc.limitDetails = map[string]any{"domainId": d.ID, "dailyQuota": acc.quota, "resetAt": utcDay(now).Add(24 * time.Hour).Format(time.RFC3339)}
	if acc.sent, err = tx.LockWarmupDay(ctx, d.ID, acc.day); err != nil {
		return nil, err
	}
	return acc, nil
}

// flush writes what the transaction counted.
func (l *warmupLedger) flush(ctx context.Context, tx *store.Tx) error {
	for id, acc := range l.accounts {
		if acc.taken == 0 {
			continue
		}
		if err := tx.AddWarmup(ctx, id, acc.day, acc.taken); err != nil {
			return err
		}
		acc.sent, acc.taken = acc.sent+acc.taken, 0
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
