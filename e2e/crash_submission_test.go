package e2e

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"net"
	"net/mail"
	"net/smtp"
	"sync"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

// submitOutcome is what one SMTP submission got: its DATA reply (the
// email's id on 250), or no reply at all because the server died while
// the message was in flight.
type submitOutcome struct {
	subject  string
	id       string // set on "250 2.0.0 queued id=<uuid>"
	inFlight bool   // DATA sent, no final reply
}

// TestCrashLosesNoSubmittedEmail (D74): SMTP clients submit in a loop, on
// reused authenticated sessions (half over STARTTLS, half over plain
// loopback, which D74 lets authenticate), while the server is killed with
// SIGKILL; after a restart on the same database every message whose DATA
// was answered 250 reaches the relay. A 250 means durable, as a 202 does.
//
// Not parallel, as TestCrashLosesNoAcceptedEmail.
func TestCrashLosesNoSubmittedEmail(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		rig := newRig(t, b)
		rig.env["CARTEIRO_SUBMISSION_ADDR"] = freeLoopbackAddr(t)
		rig.p = startProcess(t, rig.env)
		rig.setUp(t, "crash.example")
		addr := rig.env["CARTEIRO_SUBMISSION_ADDR"]

		var mu sync.Mutex
		var outcomes []submitOutcome
		seq := 0
		next := func() int {
			mu.Lock()
			defer mu.Unlock()
			seq++
			return seq
		}
		rounds := 3
		for round := 0; round < rounds; round++ {
			if round > 0 {
				rig.restart(t)
			}
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for c := 0; c < 6; c++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					got := submitUntilBroken(addr, rig.key, c%2 == 0, stop, next)
					mu.Lock()
					outcomes = append(outcomes, got...)
					mu.Unlock()
				}()
			}
			time.Sleep(time.Duration(500+300*round) * time.Millisecond)
			rig.p.kill() // mid-stream: some DATA has no reply yet
			close(stop)
			wg.Wait()
		}

		accepted := map[string]string{} // subject -> id
		inFlight := 0
		for _, o := range outcomes {
			if o.id != "" {
				accepted[o.subject] = o.id
			} else if o.inFlight {
				inFlight++
			}
		}
		testserver.Must(t, len(accepted) > 30, "too few messages accepted (%d) to prove anything", len(accepted))

		rig.restart(t)
		delivered := map[string]int{}
		missing := len(accepted)
		for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline) && missing > 0; {
			time.Sleep(200 * time.Millisecond)
			clear(delivered)
			for _, m := range rig.smtp.Messages() {
				if msg, err := mail.ReadMessage(bytes.NewReader(m.Data)); err == nil {
					delivered[msg.Header.Get("Subject")]++
				}
			}
			missing = 0
			for subject := range accepted {
				if delivered[subject] == 0 {
					missing++
				}
			}
		}
		inFlightDelivered, duplicates := 0, 0
		for _, o := range outcomes {
			if o.inFlight && delivered[o.subject] > 0 {
				inFlightDelivered++
			}
		}
		for subject := range accepted {
			if n := delivered[subject]; n > 1 {
				duplicates += n - 1
			}
		}
		t.Logf("%s: %d messages answered 250 across %d SIGKILLs; %d in flight (DATA sent, no reply) at the kills, %d of them delivered anyway; %d duplicate deliveries; %d lost",
			b, len(accepted), rounds, inFlight, inFlightDelivered, duplicates, missing)
		for subject, id := range accepted {
			if delivered[subject] == 0 {
				t.Logf("missing %s (id %s)", subject, id)
			}
		}
		testserver.Must(t, missing == 0, "%d of %d messages answered 250 never reached the relay", missing, len(accepted))
		rig.p.terminate(t)
	})
}

// freeLoopbackAddr is a 127.0.0.1 port free now, for a listener that must
// keep its address across restarts (":0" would move it).
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	testserver.Must(t, err == nil, "listen: %v", err)
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// submitUntilBroken opens one authenticated session and submits messages
// on it (MAIL, RCPT, DATA, again) until stop or until the connection
// breaks, which the kill does. It reports instead of using t: a broken
// connection is the expected end, not a failure.
func submitUntilBroken(addr, key string, startTLS bool, stop <-chan struct{}, next func() int) []submitOutcome {
	c, err := smtp.Dial(addr)
	if err != nil {
		return nil
	}
	defer c.Close()
	if c.Hello("client.example") != nil {
		return nil
	}
	if startTLS && c.StartTLS(&tls.Config{InsecureSkipVerify: true}) != nil { //nolint:gosec // the test trusts its own server
		return nil
	}
	if c.Auth(smtp.PlainAuth("", "any-user", key, "127.0.0.1")) != nil {
		return nil
	}
	var got []submitOutcome
	for {
		select {
		case <-stop:
			return got
		default:
		}
		o := submitOutcome{subject: fmt.Sprintf("smtp-crash-%d", next())}
		if c.Mail("a@crash.example") != nil || c.Rcpt("u@sink.example") != nil {
			return got
		}
		if !dataAccepted(c) {
			return got
		}
		w := c.Text.DotWriter()
		_, _ = fmt.Fprintf(w, "From: a@crash.example\r\nTo: u@sink.example\r\nSubject: %s\r\n\r\nsubmitted during a crash test\r\n", o.subject)
		// A write error on the final "." or no reply to it means the
		// server died with the message in flight: it may or may not have
		// kept it, and the client was not told.
		if w.Close() != nil {
			o.inFlight = true
			return append(got, o)
		}
		code, text, err := c.Text.ReadResponse(0)
		if err != nil && code == 0 {
			o.inFlight = true
			return append(got, o)
		}
		if m := queuedReply.FindStringSubmatch(fmt.Sprintf("%d %s", code, text)); m != nil {
			o.id = m[1]
		}
		got = append(got, o)
		if c.Reset() != nil {
			return got
		}
	}
}

// dataAccepted sends DATA and reads its 354 in the client's command
// sequence (net/smtp's own Data would drop the final reply's text, which
// carries the id).
func dataAccepted(c *smtp.Client) bool {
	id, err := c.Text.Cmd("DATA")
	if err != nil {
		return false
	}
	c.Text.StartResponse(id)
	defer c.Text.EndResponse(id)
	_, _, err = c.Text.ReadResponse(354)
	return err == nil
}
