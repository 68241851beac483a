package app

import (
	"context"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// deliveryJobs decides the delivery jobs of accepted emails
// (store.DeliveryJobs): the emails to send at once go to group jobs, a few
// for every email accepted in one transaction, and each scheduled email
// gets a job of its own, due at its time.
type deliveryJobs struct{ queue Enqueuer }

func (a *App) deliveryJobs() deliveryJobs { return deliveryJobs{queue: a.queue} }

// InsertDeliveries inserts the jobs through the queue, in tx.
func (d deliveryJobs) InsertDeliveries(ctx context.Context, tx *store.Tx, emails []*carteiro.Email) error {
	var now []string
	var scheduled []*carteiro.Email
	for _, e := range emails {
		if e.ScheduledAt != nil {
			scheduled = append(scheduled, e)
		} else {
			now = append(now, e.ID)
		}
	}
	if err := d.queue.EnqueueManyTx(ctx, tx, deliverGroups(now, false), JobOpts{}); err != nil {
		return err
	}
	for _, e := range scheduled {
		if err := d.queue.EnqueueTx(ctx, tx, DeliverJob{EmailID: e.ID}, JobOpts{ScheduledAt: *e.ScheduledAt}); err != nil {
			return err
		}
	}
	return nil
}
