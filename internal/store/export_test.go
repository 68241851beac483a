package store

import "context"

// SharedRun runs fns as the callers of one shared transaction, in this
// order, as the shared commit loop runs a batch, then answers each as
// InJoinedTx does (a caller told to run alone runs again in its own
// transaction). ranAlone says which ones did.
func (s *Store) SharedRun(ctx context.Context, fns ...func(tx *Tx) error) (errs []error, ranAlone []bool) {
	batch := make([]*sharedReq, len(fns))
	for i, fn := range fns {
		batch[i] = &sharedReq{fn: fn, done: make(chan error, 1)}
	}
	s.shared.run(batch)
	errs, ranAlone = make([]error, len(fns)), make([]bool, len(fns))
	for i, r := range batch {
		errs[i] = <-r.done
		if errs[i] == errRunAlone {
			ranAlone[i] = true
			errs[i] = s.inOwnTx(ctx, fns[i])
		}
	}
	return errs, ranAlone
}

// AcceptWork is one caller's work in Accept's shared transaction, for
// SharedRun.
func AcceptWork(jobs DeliveryJobs, decide func(tx *Tx) (Acceptance, error)) func(tx *Tx) error {
	return acceptWork(jobs, decide)
}

// OutcomeWork is one caller's work in RecordOutcome's shared transaction,
// for SharedRun.
func OutcomeWork(o Outcome, events EventRecorder, own func(tx *Tx) error) func(tx *Tx) error {
	return outcomeWork(o, events, own)
}
