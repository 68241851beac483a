package config

import (
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/ratelimit"
	"github.com/carteiro/carteiro/internal/submission"
)

// D74's per-IP limits of the submission listener: by default the ones the
// listener has always had, otherwise what the operator sets.
func TestSubmissionLimitsDefaultAndSet(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.SubmissionRateLimitIP != submission.DefaultConnectionRule || c.SubmissionAuthFailures != submission.DefaultAuthFailureRule {
		t.Fatalf("defaults %+v and %+v, want the listener's %+v and %+v", c.SubmissionRateLimitIP, c.SubmissionAuthFailures,
			submission.DefaultConnectionRule, submission.DefaultAuthFailureRule)
	}
	c, err = Load(env(map[string]string{"CARTEIRO_SUBMISSION_RATE_LIMIT_IP": "100,300", "CARTEIRO_SUBMISSION_AUTH_FAILURES": "20/h,10"}))
	if err != nil {
		t.Fatal(err)
	}
	if (c.SubmissionRateLimitIP != ratelimit.Rule{Rate: 100, Period: time.Second, Burst: 300}) ||
		(c.SubmissionAuthFailures != ratelimit.Rule{Rate: 20, Period: time.Hour, Burst: 10}) {
		t.Fatalf("set limits read as %+v and %+v", c.SubmissionRateLimitIP, c.SubmissionAuthFailures)
	}
	_, err = Load(env(map[string]string{"CARTEIRO_SUBMISSION_RATE_LIMIT_IP": "fast", "CARTEIRO_SUBMISSION_AUTH_FAILURES": "0,0"}))
	if err == nil || !strings.Contains(err.Error(), "CARTEIRO_SUBMISSION_RATE_LIMIT_IP") || !strings.Contains(err.Error(), "CARTEIRO_SUBMISSION_AUTH_FAILURES") {
		t.Fatalf("invalid limits: %v", err)
	}
}
