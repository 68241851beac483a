package queue

import (
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/config"
)

// River's fixed cadences (v0.47, internal/maintenance): its leader looks
// for stuck jobs every 30 s and makes retries due every 5 s; a job's first
// retry waits about a second.
const (
	riverRescuerEvery   = 30 * time.Second
	riverSchedulerEvery = 5 * time.Second
	riverFirstRetry     = 2 * time.Second
)

// TestDefaultJobTimeoutRunsADeadWorkersJobsWithinTwoMinutes: with the
// default CARTEIRO_JOB_TIMEOUT, a job whose process died runs again within
// 2 minutes of the death (issue 25: 30 minutes with the old 15 m), and no
// job still running, recording its outcome included, is rescued.
func TestDefaultJobTimeoutRunsADeadWorkersJobsWithinTwoMinutes(t *testing.T) {
	c, err := config.Load(func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	rescue := RescueAfter(c.JobTimeout)
	if worst := rescue + riverRescuerEvery + riverFirstRetry + riverSchedulerEvery; worst > 2*time.Minute {
		t.Fatalf("a dead worker's job runs again up to %s after its death, want at most 2 minutes", worst)
	}
	// The longest job: a delivery group (1.5 times the timeout), then its
	// last outcome recorded for up to a quarter of the timeout.
	if longest := c.JobTimeout*3/2 + c.JobTimeout/4; longest >= rescue {
		t.Fatalf("a delivery group may run %s, not less than the rescue at %s", longest, rescue)
	}
}
