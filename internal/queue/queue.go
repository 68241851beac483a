// Package queue runs Carteiro's background work on River, over SQLite
// (riversqlite) or PostgreSQL (riverpgxv5). Jobs are inserted in the same
// transaction as the rows they act on; workers are thin and call app.
package queue

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/store"
)

// Options tune the client.
type Options struct {
	// Work runs workers and periodic jobs in this process (roles worker and
	// all); false makes an insert-only client (role api, D1).
	Work bool
	// Workers is the number of concurrent workers of the default queue.
	Workers int
	// PollInterval bounds the delay before a new job is seen where no
	// LISTEN/NOTIFY is available (SQLite).
	PollInterval time.Duration
	// SweepInterval is how often the domain sweep runs.
	SweepInterval time.Duration
	// JobTimeout bounds one job; a job running twice as long in a process
	// that died is handed to another worker (River's stuck-job rescue,
	// RescueAfter).
	JobTimeout time.Duration
	// Clock, when set, becomes River's notion of now, so tests that move
	// the service's clock also move scheduled jobs (retries, schedules).
	// Production leaves it nil: River then uses the database's clock.
	Clock carteiro.Clock
}

// Queue is River bound to one store. Exactly one of the two clients is set.
type Queue struct {
	store  *store.Store
	logger *slog.Logger
	sqlite *river.Client[*sql.Tx]
	pg     *river.Client[pgx.Tx]
}

// New makes a Queue for st; Start must be called before enqueueing.
func New(st *store.Store, logger *slog.Logger) *Queue {
	return &Queue{store: st, logger: logger}
}

// Migrate creates or updates River's own tables.
func (q *Queue) Migrate(ctx context.Context) error {
	if st := q.store; st.Dialect() == store.Postgres {
		return migrate(ctx, riverpgxv5.New(st.Pool()))
	}
	return migrate(ctx, riversqlite.New(q.store.SQLiteWriteDB()))
}

func migrate[TTx any](ctx context.Context, driver riverdriver.Driver[TTx]) error {
	m, err := rivermigrate.New(driver, nil)
	if err != nil {
		return fmt.Errorf("queue: migrator: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("queue: migrate: %w", err)
	}
	return nil
}

// Start builds the River client for a and, when opts.Work, starts working.
func (q *Queue) Start(ctx context.Context, a *app.App, opts Options) error {
	cfg := q.config(a, opts)
	var err error
	if q.store.Dialect() == store.Postgres {
		q.pg, err = river.NewClient(riverpgxv5.New(q.store.Pool()), cfg)
		if err == nil && opts.Work {
			err = q.pg.Start(ctx)
		}
	} else {
		q.sqlite, err = river.NewClient(riversqlite.New(q.store.SQLiteWriteDB()), cfg)
		if err == nil && opts.Work {
			err = q.sqlite.Start(ctx)
		}
	}
	if err != nil {
		return fmt.Errorf("queue: start: %w", err)
	}
	return nil
}

func (q *Queue) config(a *app.App, opts Options) *river.Config {
	cfg := &river.Config{Logger: q.logger.With("component", "river")}
	if opts.Clock != nil {
		cfg.Test.Time = riverTime{opts.Clock}
	}
	if !opts.Work {
		return cfg
	}
	cfg.Workers = workers(a, opts.JobTimeout)
	if opts.JobTimeout > 0 {
		cfg.JobTimeout = opts.JobTimeout
		cfg.RescueStuckJobsAfter = RescueAfter(opts.JobTimeout)
	}
	cfg.Queues = map[string]river.QueueConfig{
		river.QueueDefault: {MaxWorkers: max(1, opts.Workers)},
		// Webhook attempts mostly wait on the network (5 s at worst), so
		// many run at once; one dead endpoint occupies few of them.
		app.WebhookQueue: {MaxWorkers: 4 * max(1, opts.Workers)},
		// Broadcast fan-out chunks enqueue a thousand deliveries each; on
		// their own queue they do not wait behind them. Eight chunks at a
		// time handed 20,000 recipients over in 2.2 s on PostgreSQL beside
		// the deliveries, against 3.0 s with four and 4.4 s with two
		// (docs/benchmarks-campaigns.md).
		app.BroadcastQueue: {MaxWorkers: 8},
		// One purge pass at a time; the hourly insert is skipped while
		// one waits or runs.
		app.MaintenanceQueue: {MaxWorkers: 1},
	}
	cfg.FetchPollInterval = opts.PollInterval
	if cfg.FetchPollInterval == 0 {
		cfg.FetchPollInterval = 200 * time.Millisecond
	}
	// River waits this long between fetches; at its default (100 ms) a
	// queue could start at most 10 fetches' worth of jobs a second. On
	// SQLite every fetch is a write transaction of the single writer, so
	// fetching less often leaves the writer to the transactions that do
	// the work: a broadcast's recipients were queued faster with 20 ms than
	// with 5 ms. On PostgreSQL, whose fetches run beside the other writes,
	// 20 ms lowered webhook deliveries, so it keeps 5 ms (the figures are in
	// docs/benchmarks-campaigns.md).
	cooldown := 5 * time.Millisecond
	if q.store.Dialect() == store.SQLite {
		cooldown = 20 * time.Millisecond
	}
	cfg.FetchCooldown = min(cfg.FetchPollInterval, cooldown)
	sweep := opts.SweepInterval
	if sweep == 0 {
		sweep = time.Hour
	}
	// Every newly elected leader runs the periodic jobs that run on start,
	// so a sweep merely unique while waiting ran at each election (6 times
	// in 11 minutes of faults). Unique by period, with River's default
	// states (finished jobs included), one sweep per period is inserted
	// whichever leader tries and however often leadership changes.
	cfg.PeriodicJobs = []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(sweep), func() (river.JobArgs, *river.InsertOpts) {
			return app.DomainSweepJob{}, &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: sweep}}
		}, &river.PeriodicJobOpts{ID: "domain_sweep", RunOnStart: true}),
	}
	cfg.PeriodicJobs = append(cfg.PeriodicJobs, retentionPeriodicJob())
	return cfg
}

// RescueAfter is how long a job may run before River's rescuer hands it to
// another worker, taking its process for dead: twice the job timeout. It
// must exceed the longest job (a delivery group's, 1.5 times the timeout)
// with room for the outcome of its last attempt to be recorded after its
// deadline (app.Config.RecordGrace). River's leader looks every 30 s, so
// a dead process's jobs run again within RescueAfter + 30 s of their start
// and a few seconds more (River's first retry and its scheduler): 96 s
// with the default timeout of 30 s (docs/operations.md).
func RescueAfter(jobTimeout time.Duration) time.Duration { return 2 * jobTimeout }

// uniqueWhileWaiting skips an insert while an identical job is waiting or
// running. River's default also counts completed jobs, which would block the
// next day's re-check of a domain for as long as River keeps finished jobs.
var uniqueWhileWaiting = river.UniqueOpts{
	ByArgs: true,
	ByState: []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
		rivertype.JobStateRunning, rivertype.JobStateScheduled},
}

// riverTime adapts a carteiro.Clock to River's time generator.
type riverTime struct{ clock carteiro.Clock }

func (t riverTime) Now() time.Time { return t.clock.Now() }

func (t riverTime) NowOrNil() *time.Time {
	now := t.clock.Now()
	return &now
}

// Stop waits for running jobs to finish (graceful shutdown).
func (q *Queue) Stop(ctx context.Context) error {
	var err error
	switch {
	case q.pg != nil:
		err = q.pg.Stop(ctx)
	case q.sqlite != nil:
		err = q.sqlite.Stop(ctx)
	}
	if err != nil && err.Error() == "client not started" {
		return nil
	}
	return err
}

// EnqueueTx inserts job in tx (app.Enqueuer).
func (q *Queue) EnqueueTx(ctx context.Context, tx *store.Tx, job app.Job, opts app.JobOpts) error {
	io := &river.InsertOpts{ScheduledAt: opts.ScheduledAt, Queue: opts.Queue, Priority: opts.Priority}
	if opts.UniqueByArgs {
		io.UniqueOpts = uniqueWhileWaiting
	}
	if err := tx.WriteJobs(ctx, &oneJob{q: q, job: job, opts: io}); err != nil {
		return fmt.Errorf("queue: insert %s: %w", job.Kind(), err)
	}
	return nil
}

// EnqueueManyTx inserts jobs in tx with one statement (app.Enqueuer): a
// broadcast's fan-out step hands hundreds of emails to delivery at once.
func (q *Queue) EnqueueManyTx(ctx context.Context, tx *store.Tx, jobs []app.Job, opts app.JobOpts) error {
	switch len(jobs) {
	case 0:
		return nil
	case 1:
		// A plain insert: the batch insert is a COPY on PostgreSQL, which
		// costs more round trips for one row (a single POST /emails).
		return q.EnqueueTx(ctx, tx, jobs[0], opts)
	}
	params := make([]river.InsertManyParams, len(jobs))
	for i, job := range jobs {
		params[i] = river.InsertManyParams{Args: job, InsertOpts: &river.InsertOpts{ScheduledAt: opts.ScheduledAt, Queue: opts.Queue, Priority: opts.Priority}}
	}
	if err := tx.WriteJobs(ctx, &manyJobs{q: q, params: params}); err != nil {
		return fmt.Errorf("queue: insert %d %s jobs: %w", len(jobs), jobs[0].Kind(), err)
	}
	return nil
}

// oneJob inserts one job with River's client of the store's driver
// (store.JobWriter).
type oneJob struct {
	q    *Queue
	job  app.Job
	opts *river.InsertOpts
}

func (j *oneJob) WriteSQLite(ctx context.Context, tx *sql.Tx) error {
	_, err := j.q.sqlite.InsertTx(ctx, tx, j.job, j.opts)
	return err
}

func (j *oneJob) WritePostgres(ctx context.Context, tx pgx.Tx) error {
	_, err := j.q.pg.InsertTx(ctx, tx, j.job, j.opts)
	return err
}

// manyJobs inserts jobs with one statement (store.JobWriter).
type manyJobs struct {
	q      *Queue
	params []river.InsertManyParams
}

func (j *manyJobs) WriteSQLite(ctx context.Context, tx *sql.Tx) error {
	_, err := j.q.sqlite.InsertManyFastTx(ctx, tx, j.params)
	return err
}

func (j *manyJobs) WritePostgres(ctx context.Context, tx pgx.Tx) error {
	_, err := j.q.pg.InsertManyFastTx(ctx, tx, j.params)
	return err
}

// Enqueue inserts job in its own transaction.
func (q *Queue) Enqueue(ctx context.Context, job app.Job, opts app.JobOpts) error {
	return q.store.InTx(ctx, func(tx *store.Tx) error { return q.EnqueueTx(ctx, tx, job, opts) })
}
