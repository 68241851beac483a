package queue

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/carteiro/carteiro/internal/app"
)

// workers registers one thin worker per job kind; each calls a use case.
// jobTimeout is River's bound on one job (0: River's default).
func workers(a *app.App, jobTimeout time.Duration) *river.Workers {
	w := river.NewWorkers()
	river.AddWorker(w, &domainSweepWorker{app: a})
	river.AddWorker(w, &domainCheckWorker{app: a})
	river.AddWorker(w, &deliverWorker{app: a})
	river.AddWorker(w, &deliverGroupWorker{app: a, timeout: jobTimeout})
	river.AddWorker(w, &senderVerificationWorker{app: a})
	river.AddWorker(w, &webhookWorker{app: a})
	river.AddWorker(w, &startBroadcastWorker{app: a})
	river.AddWorker(w, &fanOutWorker{app: a})
	river.AddWorker(w, &fanOutChunkWorker{app: a})
	river.AddWorker(w, &retentionWorker{app: a})
	return w
}

type domainSweepWorker struct {
	river.WorkerDefaults[app.DomainSweepJob]
	app *app.App
}

func (w *domainSweepWorker) Work(ctx context.Context, _ *river.Job[app.DomainSweepJob]) error {
	_, err := w.app.SweepDomains(ctx)
	return err
}

type domainCheckWorker struct {
	river.WorkerDefaults[app.DomainCheckJob]
	app *app.App
}

func (w *domainCheckWorker) Work(ctx context.Context, job *river.Job[app.DomainCheckJob]) error {
	return w.app.RecheckDomain(ctx, job.Args.DomainID)
}

type deliverWorker struct {
	river.WorkerDefaults[app.DeliverJob]
	app *app.App
}

func (w *deliverWorker) Work(ctx context.Context, job *river.Job[app.DeliverJob]) error {
	return w.app.DeliverEmail(ctx, job.Args.EmailID, job.Args.Background, job.ScheduledAt)
}

type deliverGroupWorker struct {
	river.WorkerDefaults[app.DeliverGroupJob]
	app     *app.App
	timeout time.Duration
}

// Timeout gives a group job half as long again as other jobs: it starts
// attempts during its first third, so each attempt in flight keeps at least
// a whole job timeout, as it would in a job of its own; River's rescue of
// stuck jobs (twice the job timeout) still comes later.
func (w *deliverGroupWorker) Timeout(*river.Job[app.DeliverGroupJob]) time.Duration {
	if w.timeout <= 0 {
		return 0 // River's default
	}
	return w.timeout * 3 / 2
}

func (w *deliverGroupWorker) Work(ctx context.Context, job *river.Job[app.DeliverGroupJob]) error {
	return w.app.DeliverGroup(ctx, job.Args.EmailIDs, job.Args.Background, job.ScheduledAt)
}

type senderVerificationWorker struct {
	river.WorkerDefaults[app.SenderVerificationJob]
	app *app.App
}

func (w *senderVerificationWorker) Work(ctx context.Context, job *river.Job[app.SenderVerificationJob]) error {
	return w.app.SendSenderVerification(ctx, job.Args)
}

type webhookWorker struct {
	river.WorkerDefaults[app.WebhookDeliveryJob]
	app *app.App
}

func (w *webhookWorker) Work(ctx context.Context, job *river.Job[app.WebhookDeliveryJob]) error {
	return w.app.DeliverWebhook(ctx, job.Args.DeliveryID)
}

type startBroadcastWorker struct {
	river.WorkerDefaults[app.StartBroadcastJob]
	app *app.App
}

func (w *startBroadcastWorker) Work(ctx context.Context, job *river.Job[app.StartBroadcastJob]) error {
	return w.app.StartScheduledBroadcast(ctx, job.Args.BroadcastID)
}

type fanOutWorker struct {
	river.WorkerDefaults[app.FanOutJob]
	app *app.App
}

func (w *fanOutWorker) Work(ctx context.Context, job *river.Job[app.FanOutJob]) error {
	return w.app.FanOut(ctx, job.Args.BroadcastID)
}

type fanOutChunkWorker struct {
	river.WorkerDefaults[app.FanOutChunkJob]
	app *app.App
}

func (w *fanOutChunkWorker) Work(ctx context.Context, job *river.Job[app.FanOutChunkJob]) error {
	return w.app.FanOutChunk(ctx, job.Args.BroadcastID, job.Args.Seq)
}
