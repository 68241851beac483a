package store

import (
	"context"
	"errors"
	"fmt"
)

// ErrServedElsewhere is LockServing's answer when another process already
// works on the same SQLite file.
var ErrServedElsewhere = errors.New("another carteiro process is serving this SQLite database (SQLite allows one; several processes need PostgreSQL, D1)")

// LockServing makes this process the only one working on the SQLite file,
// until release is called or the process ends: it holds an exclusive lock
// on PATH.lock, which the operating system drops with the process, even one
// killed. locked is false where no lock could be taken (PostgreSQL, where
// several processes share the database by design, and systems without
// flock); then nothing may assume it is alone.
func (s *Store) LockServing() (release func(), locked bool, err error) {
	if s.dialect != SQLite {
		return func() {}, false, nil
	}
	return lockFile(s.path + ".lock")
}

// RequeueOrphanedJobs makes the jobs left running available again and
// returns how many there were. Call it only under LockServing, before the
// queue starts: then a job still marked running was taken by a process
// that died (a crash, a SIGKILL), and without this it would wait for
// River's stuck-job rescue, twice the job timeout (30 minutes by default).
// The interrupted attempt stays counted, as River's rescue counts it.
func (s *Store) RequeueOrphanedJobs(ctx context.Context) (int64, error) {
	n, err := s.exec(ctx, `UPDATE river_job SET state = 'available' WHERE state = 'running'`)
	if err != nil {
		return 0, fmt.Errorf("store: requeue orphaned jobs: %w", classify(err))
	}
	return n, nil
}
