package store

import "context"

// WarmupCharge counts one email against its domain's daily quota (D34):
// the use case works out the day (UTC) and that day's quota; the store
// counts under the day's lock, which only it can take.
type WarmupCharge struct {
	DomainID string
	Day      string // YYYY-MM-DD, UTC
	Quota    int    // 0: unlimited
}

// WarmupLedger counts the emails of one transaction against their
// domains' daily quotas with two statements per domain instead of two per
// email: the first email of a domain locks and reads its day's count
// (LockWarmupDay), later ones are counted in memory, and Flush writes each
// domain's count once. A ledger belongs to one transaction and must be
// flushed in it. The read is a store rule: it must happen under the lock,
// in the transaction that writes, or two concurrent requests could both
// take the day's last room.
type WarmupLedger struct {
	days map[string]*warmupDayCount // by domain id
}

type warmupDayCount struct {
	day         string
	quota       int
	sent, taken int // counted before this transaction; counted by it
}

// Take counts c and says whether it fits its domain's quota; one that
// does not is not counted. The first charge of a domain sets its day and
// quota for the ledger.
func (l *WarmupLedger) Take(ctx context.Context, tx *Tx, c WarmupCharge) (bool, error) {
	if c.Quota == 0 {
		return true, nil
	}
	d := l.days[c.DomainID]
	if d == nil {
		sent, err := tx.LockWarmupDay(ctx, c.DomainID, c.Day)
		if err != nil {
			return false, err
		}
		d = &warmupDayCount{day: c.Day, quota: c.Quota, sent: sent}
		if l.days == nil {
			l.days = map[string]*warmupDayCount{}
		}
		l.days[c.DomainID] = d
	}
	if d.sent+d.taken+1 > d.quota {
		return false, nil
	}
	d.taken++
	return true, nil
}

// Flush writes what the transaction counted.
func (l *WarmupLedger) Flush(ctx context.Context, tx *Tx) error {
	for id, d := range l.days {
		if d.taken == 0 {
			continue
		}
		if err := tx.AddWarmup(ctx, id, d.day, d.taken); err != nil {
			return err
		}
		d.sent, d.taken = d.sent+d.taken, 0
	}
	return nil
}
