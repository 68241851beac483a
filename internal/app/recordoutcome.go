package app

import (
	"context"
	"fmt"
	"time"

	"github.com/carteiro/carteiro/internal/store"
)

// defaultRecordGrace is Config.RecordGrace when unset.
const defaultRecordGrace = 7 * time.Second

// Backoff between tries to reach the store while it is away.
const (
	recordRetryFirst = 100 * time.Millisecond
	recordRetryMax   = 2 * time.Second
)

// outcomeContext is the context in which an attempt that the SMTP server
// answered records its outcome. Once the server has answered 250 the outcome
// exists only in this process's memory: failing the job would make River run
// it again and send the email again (41 to 55 duplicates per PostgreSQL
// outage before this). So the outcome is kept and written when the store is
// back (untilStored); a duplicate is then possible only if the process dies
// between the answer and the commit.
//
// The context outlives the job's own deadline (a deadline that passed while
// the store was away must not throw the outcome away) by Config.RecordGrace
// at most, which the queue keeps short of River's rescue of the job: a job
// still recording is never taken for a dead one and run twice.
func (a *App) outcomeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	grace := a.cfg.RecordGrace
	if grace <= 0 {
		grace = defaultRecordGrace
	}
	until := time.Now().Add(grace)
	if deadline, ok := ctx.Deadline(); ok {
		until = deadline.Add(grace)
	}
	return context.WithDeadline(context.WithoutCancel(ctx), until)
}

// untilStored runs step until it succeeds, fails for a reason other than an
// unreachable store, or ctx (an outcomeContext) ends, waiting longer between
// tries up to recordRetryMax. step must be safe to run again: it is either
// a read or a whole transaction, which an unreachable store did not commit.
func (a *App) untilStored(ctx context.Context, what string, step func() error) error {
	return a.retryUnavailable(ctx, what, true, step)
}

// beforeSending runs step, a read or write that prepares an attempt, as
// untilStored does but within the job's own time (ctx) and without logging:
// an attempt that was under way when the database went away waits for it
// instead of failing its job, whose retry River would then put off (its
// backoff grows with each failure), and a delivery group cut off for less
// than its time goes on as soon as the database is back.
func (a *App) beforeSending(ctx context.Context, step func() error) error {
	return a.retryUnavailable(ctx, "", false, step)
}

func (a *App) retryUnavailable(ctx context.Context, what string, log bool, step func() error) error {
	wait := recordRetryFirst
	for tries := 1; ; tries++ {
		err := step()
		if err == nil || !store.IsUnavailable(err) {
			if log && err == nil && tries > 1 {
				a.logger.InfoContext(ctx, "database back: "+what+" done", "tries", tries)
			}
			return err
		}
		if log && tries == 1 {
			a.logger.WarnContext(ctx, "database unreachable: "+what+" waits for it", "err", err)
		}
		select {
		case <-ctx.Done():
			if !log {
				return err
			}
			return fmt.Errorf("%s: gave up after %d tries: %w", what, tries, err)
		case <-time.After(wait):
		}
		wait = min(2*wait, recordRetryMax)
	}
}
