package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// DeliverGroupJob makes the first delivery attempt of emails accepted or
// handed over together: a batch, the accepts of one shared commit, or
// a slice of a broadcast chunk. One job row instead of one per email takes
// most of River's inserts, fetches and completions off the database, the
// single writer on SQLite (docs/architecture.md). Retries and scheduled
// emails keep a DeliverJob of their own.
type DeliverGroupJob struct {
	EmailIDs []string `json:"emailIds"`
	// Background puts the emails in the background lane
	// (DeliverJob.Background).
	Background bool `json:"background,omitempty"`
}

// Kind names the job.
func (DeliverGroupJob) Kind() string { return "deliver_emails" }

// deliverGroupSize caps the emails of one group job: a batch's 100 fit in
// one, and a job that runs again reads at most this many emails again.
const deliverGroupSize = 100

// deliverGroups splits ids into group jobs of at most deliverGroupSize.
func deliverGroups(ids []string, background bool) []Job {
	jobs := make([]Job, 0, (len(ids)+deliverGroupSize-1)/deliverGroupSize)
	for len(ids) > 0 {
		n := min(len(ids), deliverGroupSize)
		jobs = append(jobs, DeliverGroupJob{EmailIDs: ids[:n:n], Background: background})
		ids = ids[n:]
	}
	return jobs
}

// DeliverGroup is the worker side of DeliverGroupJob: each email's first
// attempt, as many at once as delivery slots allow. background marks a
// broadcast's group, which yields slots to transactional email; due is
// when the job became due, which bounds how long its attempts yield slots
// to accepts (deliverySlots).
//
// When the job runs again (an email's attempt failed with an error, or the
// process died), the emails whose first attempt ended are left alone: a
// deferred one already has its retry job (D23). Only those never attempted,
// or whose first attempt was cut short, are attempted again.
func (a *App) DeliverGroup(ctx context.Context, ids []string, background bool, due time.Time) error {
	// Attempts start only in the first third of the job's time, leaving
	// each one in flight at least the other two thirds (the queue makes a
	// group job's time half as long again as a job's). When slots are scarce
	// (a backlog, a slow relay) the emails not started by then go to a new
	// group job: the job's timeout never cuts an attempt short, and River
	// never takes a long job for a stuck one.
	startBy := ctx
	if deadline, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		startBy, cancel = context.WithDeadline(ctx, time.Now().Add(time.Until(deadline)/3))
		defer cancel()
	}
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		errs   []error
		failed []string // the emails whose attempt ended in an error
		rest   []string // the emails not started in time
	)
	for i, id := range ids {
		if err := a.slots.acquire(startBy, background, due); err != nil {
			if ctx.Err() == nil {
				rest = ids[i:]
			} else {
				errs = append(errs, err)
			}
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer a.slots.release()
			if err := a.deliverEmail(ctx, id, true); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("email %s: %w", id, err))
				failed = append(failed, id)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(rest) == 0 {
		return errors.Join(errs...)
	}
	// The new job takes the failed emails too, and this one ends without an
	// error: were it run again, it would attempt the emails passed on,
	// beside the job that now owns them.
	passed := append(failed, rest...)
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		return a.queue.EnqueueManyTx(ctx, tx, deliverGroups(passed, background), JobOpts{Priority: groupPriority(background)})
	})
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("pass %d emails on to a new group job: %w", len(passed), err))...)
	}
	return nil
}

// groupPriority is deliveryPriority for a group job.
func groupPriority(background bool) int {
	if background {
		return backgroundPriority
	}
	return 0
}

// DeliverEmail is the worker side of DeliverJob: one delivery attempt of
// every recipient of the email not yet final, once a delivery slot is free
// (due as in DeliverGroup).
func (a *App) DeliverEmail(ctx context.Context, emailID string, background bool, due time.Time) error {
	if err := a.slots.acquire(ctx, background, due); err != nil {
		return err
	}
	defer a.slots.release()
	return a.deliverEmail(ctx, emailID, false)
}

// firstAttemptDone reports whether the outcome of an email's first attempt
// was recorded, which leaves the email to its own retry job when a group
// job runs again: every attempt recorded gives each recipient it started
// with an outcome, so only an email never attempted, or whose attempts were
// all cut short (by crashes, perhaps more than one), still has a pending
// recipient. Counting attempts would not do: each cut-short one counts.
func firstAttemptDone(recipients []*carteiro.Recipient) bool {
	for _, r := range recipients {
		if r.Status == carteiro.RecipientPending {
			return false
		}
	}
	return true
}
