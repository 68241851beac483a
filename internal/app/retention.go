package app

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// RetentionJob is the periodic purge of D77: content, then whole records,
// of old emails; webhook deliveries older than 30 days; expired
// idempotency keys.
type RetentionJob struct{}

// Kind names the job.
func (RetentionJob) Kind() string { return "retention_purge" }

// webhookDeliveryRetention is how long webhook deliveries are kept (D77).
const webhookDeliveryRetention = 30 * 24 * time.Hour

// PurgePassLimit bounds one pass; the next pass, an hour later, goes on
// where the rows still due are. The retention job's own timeout is longer
// (internal/queue): the job timeout of deliveries (30 s by default) cut
// passes short, to a few thousand records an hour under load.
const PurgePassLimit = 10 * time.Minute

// Purged counts what the retention purge removed.
type Purged struct {
	// ContentEmails emails lost their content, which held ContentBytes.
	ContentEmails, ContentBytes int64
	// Emails records were deleted with their recipients, tags and timeline.
	Emails int64
	// WebhookDeliveries and IdempotencyKeys were deleted.
	WebhookDeliveries, IdempotencyKeys int64
	// InboundEmails received messages were deleted with their raw bytes (D75).
	InboundEmails int64
}

func (p Purged) any() bool {
	return p.ContentEmails+p.Emails+p.WebhookDeliveries+p.IdempotencyKeys+p.InboundEmails > 0
}

// purgeCounters are the totals since the process started (metrics).
type purgeCounters struct {
	contentEmails, contentBytes, emails, webhookDeliveries, idempotencyKeys, inboundEmails atomic.Int64
}

func (c *purgeCounters) add(p Purged) {
	c.contentEmails.Add(p.ContentEmails)
	c.contentBytes.Add(p.ContentBytes)
	c.emails.Add(p.Emails)
	c.webhookDeliveries.Add(p.WebhookDeliveries)
	c.idempotencyKeys.Add(p.IdempotencyKeys)
	c.inboundEmails.Add(p.InboundEmails)
}

// PurgedTotals is what the retention purge of this process has removed
// since it started.
func (a *App) PurgedTotals() Purged {
	c := &a.purged
	return Purged{ContentEmails: c.contentEmails.Load(), ContentBytes: c.contentBytes.Load(), Emails: c.emails.Load(),
		WebhookDeliveries: c.webhookDeliveries.Load(), IdempotencyKeys: c.idempotencyKeys.Load(), InboundEmails: c.inboundEmails.Load()}
}

// Purge runs one pass of the retention purge (D77) and returns what it
// removed. It works in small batches paced by batchPacer, so it never holds
// the database long enough to slow accepts down; a pass cut short by its
// time limit leaves the rest to the next.
func (a *App) Purge(ctx context.Context) (Purged, error) {
	ctx, cancel := context.WithTimeout(ctx, PurgePassLimit)
	defer cancel()
	var got Purged
	err := a.purge(ctx, &got)
	a.purged.add(got)
	if got.any() {
		a.logger.InfoContext(ctx, "retention purge", "content_emails", got.ContentEmails, "content_bytes", got.ContentBytes,
			"emails", got.Emails, "webhook_deliveries", got.WebhookDeliveries, "idempotency_keys", got.IdempotencyKeys,
			"inbound_emails", got.InboundEmails)
	}
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
		return got, nil
	}
	return got, err
}

func (a *App) purge(ctx context.Context, got *Purged) error {
	now := a.clock.Now()
	pace := newBatchPacer()
	// Whole records first: emptying what is about to go is wasted work.
	if a.cfg.LogRetention > 0 {
		if err := a.purgeRecords(ctx, pace, now.Add(-a.cfg.LogRetention), got); err != nil {
			return err
		}
	}
	if a.cfg.ContentRetention > 0 {
		if err := a.purgeContent(ctx, pace, now, now.Add(-a.cfg.ContentRetention), got); err != nil {
			return err
		}
	}
	if a.cfg.InboundRetention > 0 {
		if err := a.purgeInbound(ctx, pace, now.Add(-a.cfg.InboundRetention), got); err != nil {
			return err
		}
	}
	if err := a.purgeWebhookDeliveries(ctx, pace, now.Add(-webhookDeliveryRetention), got); err != nil {
		return err
	}
	return a.purgeIdempotencyKeys(ctx, pace, now.Add(-idempotencyWindow), got)
}

func (a *App) purgeRecords(ctx context.Context, pace *batchPacer, cutoff time.Time, got *Purged) error {
	orgs, err := a.store.OrganizationIDs(ctx)
	if err != nil {
		return err
	}
	for _, org := range orgs {
		for _, mode := range []carteiro.Mode{carteiro.ModeLive, carteiro.ModeTest} {
			var pos store.Position
			for {
				start := time.Now()
				listed, err := a.store.RecordsDue(ctx, org, mode, cutoff, pos, pace.size)
				if err != nil || len(listed) == 0 {
					if err != nil {
						return err
					}
					break
				}
				var due []store.DueEmail
				for _, d := range listed {
					if d.Due() {
						due = append(due, d)
					}
				}
				n, err := a.store.DeleteEmails(ctx, dueIDs(due))
				got.Emails += n
				if err != nil {
					return err
				}
				pos = listed[len(listed)-1].Position
				full := len(listed) == pace.size
				if err := pace.rest(ctx, time.Since(start)); err != nil || !full {
					if err != nil {
						return err
					}
					break
				}
			}
		}
	}
	return nil
}

func (a *App) purgeContent(ctx context.Context, pace *batchPacer, now, cutoff time.Time, got *Purged) error {
	orgs, err := a.store.OrganizationIDs(ctx)
	if err != nil {
		return err
	}
	for _, org := range orgs {
		for _, mode := range []carteiro.Mode{carteiro.ModeLive, carteiro.ModeTest} {
			if err := a.purgeContentOf(ctx, pace, org, mode, now, cutoff, got); err != nil {
				return err
			}
		}
	}
	return nil
}

// purgeContentOf empties the content of one organization's emails of one
// mode. It starts where the last pass left off and keeps, for the next
// pass, the position before the first email that must keep its content
// for now (waiting to be sent, or with a recent event): every email before
// that position holds no content any more, so it is never walked again.
func (a *App) purgeContentOf(ctx context.Context, pace *batchPacer, org string, mode carteiro.Mode, now, cutoff time.Time, got *Purged) error {
	start, err := a.store.ContentPosition(ctx, org, mode)
	if err != nil {
		return err
	}
	pos, next, kept := start, start, false
	defer func() {
		if next != start {
			// Best effort: a lost position only means walking again.
			_ = a.store.SetContentPosition(context.WithoutCancel(ctx), org, mode, next)
		}
	}()
	for {
		began := time.Now()
		listed, err := a.store.ContentDue(ctx, org, mode, cutoff, pos, pace.size)
		if err != nil || len(listed) == 0 {
			return err
		}
		var due []store.DueEmail
		for _, d := range listed {
			if d.Due() {
				due = append(due, d)
			}
		}
		n, err := a.store.EmptyContent(ctx, dueIDs(due), now)
		got.ContentEmails += n
		if err != nil {
			return err
		}
		if n > 0 {
			for _, d := range due {
				got.ContentBytes += d.ContentBytes
			}
		}
		for _, d := range listed {
			if kept = kept || d.Kept(); !kept {
				next = d.Position
			}
		}
		pos = listed[len(listed)-1].Position
		full := len(listed) == pace.size
		if err := pace.rest(ctx, time.Since(began)); err != nil || !full {
			return err
		}
	}
}

func (a *App) purgeWebhookDeliveries(ctx context.Context, pace *batchPacer, cutoff time.Time, got *Purged) error {
	hooks, err := a.store.WebhookIDs(ctx)
	if err != nil {
		return err
	}
	for _, hook := range hooks {
		for {
			start := time.Now()
			size := pace.size
			n, err := a.store.DeleteOldDeliveries(ctx, hook, cutoff, size)
			got.WebhookDeliveries += n
			if err != nil {
				return err
			}
			if err := pace.rest(ctx, time.Since(start)); err != nil {
				return err
			}
			if n < int64(size) {
				break
			}
		}
	}
	return nil
}

func (a *App) purgeIdempotencyKeys(ctx context.Context, pace *batchPacer, cutoff time.Time, got *Purged) error {
	var pos store.IdempotencyPosition
	for {
		start := time.Now()
		next, n, done, err := a.store.DeleteExpiredIdempotency(ctx, cutoff, pos, 4*pace.size)
		got.IdempotencyKeys += n
		if err != nil || done {
			return err
		}
		pos = next
		if err := pace.rest(ctx, time.Since(start)); err != nil {
			return err
		}
	}
}

func dueIDs(due []store.DueEmail) []string {
	ids := make([]string, len(due))
	for i, d := range due {
		ids[i] = d.ID
	}
	return ids
}

// purgeInbound deletes received messages older than cutoff (D75), a batch
// per transaction so that a message never loses its raw bytes alone.
func (a *App) purgeInbound(ctx context.Context, pace *batchPacer, cutoff time.Time, got *Purged) error {
	for {
		began, size := time.Now(), pace.size
		var n int
		err := a.store.InTx(ctx, func(tx *store.Tx) error {
			var err error
			n, err = tx.PurgeInbound(ctx, cutoff, size)
			return err
		})
		if err != nil {
			return err
		}
		got.InboundEmails += int64(n)
		if err := pace.rest(ctx, time.Since(began)); err != nil || n < size {
			return err
		}
	}
}
