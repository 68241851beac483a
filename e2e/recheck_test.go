package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/testserver"
)

// sweepUntil runs the periodic domain sweep through River, as the hourly
// schedule would, until the domain reaches status (D32). The sweep repeats:
// a check job of the previous sweep that River has not yet marked complete
// makes the next identical one a no-op, exactly as in production, where the
// following hour's sweep picks the domain up.
func sweepUntil(t *testing.T, ts *testserver.TestServer, id, status string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		if i%10 == 0 {
			if err := ts.Queue.Enqueue(context.Background(), app.DomainSweepJob{}, app.JobOpts{}); err != nil {
				t.Fatalf("enqueue sweep: %v", err)
			}
		}
		r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains/" + id, Key: ts.LiveKey})
		if r.JSON(t)["status"] == status {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("domain %s did not become %s after the sweep", id, status)
}

func domainStatus(t *testing.T, ts *testserver.TestServer, id string) string {
	t.Helper()
	r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains/" + id, Key: ts.LiveKey})
	testserver.Expect(t, r, 200, "")
	return r.JSON(t)["status"].(string)
}

func TestDailyRecheckFailsDomainWhoseRecordsAreGone(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		d := createDomain(t, ts, ts.LiveKey, "recheck.example")
		publish(ts, d)
		testserver.Must(t, verify(t, ts, ts.LiveKey, d.ID).Status == "verified", "not verified")

		// A day later with the records still there: the re-check keeps it verified.
		ts.Clock.Advance(25 * time.Hour)
		if err := ts.Queue.Enqueue(context.Background(), app.DomainSweepJob{}, app.JobOpts{}); err != nil {
			t.Fatal(err)
		}
		waitLastCheck(t, ts, d.ID, ts.Clock.Now())
		testserver.Must(t, domainStatus(t, ts, d.ID) == "verified", "a domain with its records was failed")

		// The DKIM record is removed; the next daily re-check fails the domain.
		ts.DNS.RemoveName("cart1._domainkey.recheck.example")
		ts.Clock.Advance(25 * time.Hour)
		sweepUntil(t, ts, d.ID, "failed")

		// Publishing again and verifying on demand brings it back (D32).
		publish(ts, d)
		testserver.Must(t, verify(t, ts, ts.LiveKey, d.ID).Status == "verified", "re-verify failed")
	})
}

func TestUnverifiedFor72HoursFails(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		d := createDomain(t, ts, ts.LiveKey, "late.example")
		young := createDomain(t, ts, ts.LiveKey, "young.example")
		_ = young

		ts.Clock.Advance(71 * time.Hour)
		testserver.Must(t, verify(t, ts, ts.LiveKey, d.ID).Status == "pending", "failed before 72 hours")

		ts.Clock.Advance(2 * time.Hour)
		sweepUntil(t, ts, d.ID, "failed")

		// A later successful verify still verifies it.
		publish(ts, d)
		v := verify(t, ts, ts.LiveKey, d.ID)
		testserver.Must(t, v.Status == "verified" && v.VerifiedAt != nil, "late verify: %+v", v)
	})
}

func waitLastCheck(t *testing.T, ts *testserver.TestServer, id string, at time.Time) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains/" + id, Key: ts.LiveKey})
		if s, _ := r.JSON(t)["lastCheckAt"].(string); s != "" {
			if got, err := time.Parse(time.RFC3339Nano, s); err == nil && !got.Before(at) {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("domain %s was not re-checked", id)
}

// TestDNSOutageKeepsDomainVerified: a resolver that cannot answer is no
// evidence that the records are gone.
func TestDNSOutageKeepsDomainVerified(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		d := createDomain(t, ts, ts.LiveKey, "flaky-dns.example")
		publish(ts, d)
		testserver.Must(t, verify(t, ts, ts.LiveKey, d.ID).Status == "verified", "not verified")
		for _, rec := range d.Records {
			ts.DNS.SetFailure(rec.Host, 2) // SERVFAIL
		}
		v := verify(t, ts, ts.LiveKey, d.ID)
		testserver.Must(t, v.Status == "verified" && v.Checks["dkim"].Status == "pending", "after a DNS outage: %+v", v)
	})
}
