package e2e

import (
	"net/smtp"
	"strings"
	"testing"

	"github.com/carteiro/carteiro/internal/testserver"
)

// TestSubmissionPerIPLimitsAreSettings: CARTEIRO_SUBMISSION_RATE_LIMIT_IP
// and CARTEIRO_SUBMISSION_AUTH_FAILURES replace D74's default per-IP
// limits (10 sessions a second with bursts of 30; 5 failed AUTHs a
// minute). With bursts of 3 sessions and 2 failures, the 4th session gets
// 421 4.7.0 and the 3rd failed AUTH 454 4.7.0. The test clock does not
// move, so no bucket refills.
func TestSubmissionPerIPLimitsAreSettings(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, _ := submissionServer(t, b, map[string]string{
			"CARTEIRO_SUBMISSION_RATE_LIMIT_IP": "1,4", "CARTEIRO_SUBMISSION_AUTH_FAILURES": "2/m,2"})
		var errs []error
		for range 4 {
			c, err := smtp.Dial(ts.SubmissionAddr())
			testserver.Must(t, err == nil, "dial: %v", err)
			t.Cleanup(func() { _ = c.Close() })
			if err = c.Hello("client.example"); err == nil {
				err = c.Auth(smtp.PlainAuth("", "u", "re_live_guess", "127.0.0.1"))
				testserver.Must(t, err != nil, "a guessed key was accepted")
			}
			errs = append(errs, err)
		}
		for i, want := range [][2]string{{"535", "5.7.8"}, {"535", "5.7.8"}, {"454", "4.7.0"}} {
			got := errs[i].Error()
			testserver.Must(t, strings.HasPrefix(got, want[0]) && strings.Contains(got, want[1]), "session %d: %v, want %s %s", i+1, got, want[0], want[1])
		}
		c, err := smtp.Dial(ts.SubmissionAddr())
		testserver.Must(t, err == nil, "dial: %v", err)
		defer c.Close()
		err = c.Hello("client.example")
		testserver.Must(t, err != nil && strings.HasPrefix(err.Error(), "421") && strings.Contains(err.Error(), "4.7.0"), "5th session: %v", err)
	})
}
