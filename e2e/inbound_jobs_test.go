package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/carteiro/carteiro/internal/testserver"
)

// failJobInserts makes every insert of a queue job fail until the returned
// func undoes it: storage that takes the message's row and its webhook
// deliveries, then fails at the jobs, which the commit of received mail
// inserts last, for all the messages sharing it (issue 28).
func failJobInserts(t *testing.T, ts *testserver.TestServer) (restore func()) {
	t.Helper()
	ctx := context.Background()
	var create, drop []string
	if ts.Backend == testserver.Postgres {
		create = []string{
			`CREATE FUNCTION test_fail_jobs() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'job storage down'; END $$`,
			`CREATE TRIGGER test_fail_jobs BEFORE INSERT ON river_job FOR EACH ROW EXECUTE FUNCTION test_fail_jobs()`,
		}
		drop = []string{`DROP TRIGGER test_fail_jobs ON river_job`, `DROP FUNCTION test_fail_jobs()`}
	} else {
		create = []string{`CREATE TRIGGER test_fail_jobs BEFORE INSERT ON river_job BEGIN SELECT RAISE(ABORT, 'job storage down'); END`}
		drop = []string{`DROP TRIGGER test_fail_jobs`}
	}
	run := func(stmts []string) {
		for _, q := range stmts {
			var err error
			if pool := ts.Store.Pool(); pool != nil {
				_, err = pool.Exec(ctx, q)
			} else {
				_, err = ts.Store.SQLiteWriteDB().ExecContext(ctx, q)
			}
			testserver.Must(t, err == nil, "%s: %v", q, err)
		}
	}
	run(create)
	return func() { run(drop) }
}

// TestInboundJobInsertFailureAnswers4xx (D75, issue 28): the webhook jobs
// of received mail are inserted once for every message sharing a commit,
// after their rows; when that insert fails, the senders get a 4xx, never
// a 250, and nothing is stored. Once the jobs can be written again,
// messages sent at once are each stored and each reach the webhook.
func TestInboundJobInsertFailureAnswers4xx(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		r := newInboundRig(t, b, nil)
		addr := r.mxAddr(t, "shop.example")
		to := "jobs@shop.example"

		restore := failJobInserts(t, r.ts)
		err := sendSMTP(addr, "mail.sender.example", "x@sender.example", []string{to}, smallMessage(to, "while jobs fail"))
		restore()
		testserver.Must(t, err != nil && strings.HasPrefix(smtpCode(err), "4"), "while job inserts fail: %v, want a 4xx", err)
		testserver.Must(t, len(r.inboundTo(t, to)) == 0, "stored %+v, want nothing", r.inboundTo(t, to))

		const n = 4
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() {
				errs[i] = sendSMTP(addr, "mail.sender.example", "x@sender.example", []string{to}, smallMessage(to, fmt.Sprintf("retry %d", i)))
			})
		}
		wg.Wait()
		for i, err := range errs {
			testserver.Must(t, err == nil, "message %d: %v", i, err)
		}
		testserver.Must(t, len(r.inboundTo(t, to)) == n, "stored %d, want %d", len(r.inboundTo(t, to)), n)
		subjects := map[string]bool{}
		for _, p := range r.receivedHooks(t, n) {
			testserver.Must(t, p.Type == "email.received", "webhook %s, want email.received", p.Type)
			subjects[fmt.Sprint(p.Data["subject"])] = true
		}
		for i := range n {
			testserver.Must(t, subjects[fmt.Sprintf("retry %d", i)], "no email.received for retry %d in %v", i, subjects)
		}
	})
}
