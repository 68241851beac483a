package queue

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/carteiro/carteiro/internal/app"
)

// retentionInterval is how often the retention purge runs (D77). Each pass
// takes what became due since the last one, in small batches.
const retentionInterval = time.Hour

// retentionPeriodicJob runs the purge hourly and once at start; an insert
// while a purge is still waiting or running is skipped.
func retentionPeriodicJob() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(retentionInterval), func() (river.JobArgs, *river.InsertOpts) {
		return app.RetentionJob{}, retentionInsertOpts()
	}, &river.PeriodicJobOpts{ID: "retention_purge", RunOnStart: true})
}

// retentionInsertOpts puts the pass on its own queue, so that it starts
// when it is due rather than after the delivery backlog (MaintenanceQueue).
func retentionInsertOpts() *river.InsertOpts {
	return &river.InsertOpts{Queue: app.MaintenanceQueue, UniqueOpts: uniqueWhileWaiting}
}

type retentionWorker struct {
	river.WorkerDefaults[app.RetentionJob]
	app *app.App
}

// Timeout lets a pass run its whole PurgePassLimit: with the client's job
// timeout (CARTEIRO_JOB_TIMEOUT, 30 s, meant for delivery attempts) River
// cancelled passes after 30 s, so an hourly pass under load removed a few
// thousand records (docs/benchmarks.md), fewer than a busy service sends.
// River's rescuer honours this timeout too, so a long pass is not taken
// for a stuck job.
func (w *retentionWorker) Timeout(*river.Job[app.RetentionJob]) time.Duration {
	return app.PurgePassLimit + time.Minute
}

func (w *retentionWorker) Work(ctx context.Context, _ *river.Job[app.RetentionJob]) error {
	_, err := w.app.Purge(ctx)
	return err
}
