package dnscheck

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/dkim"
	"github.com/carteiro/carteiro/internal/testutil"
	"github.com/miekg/dns"
)

const testBounceHost = "bounces.carteiro.test"

// newTestDomain returns the records D31 asks example.com to publish, with a
// real RSA-2048 DKIM key so the p= value has its real length (over 255
// bytes, hence split in DNS).
func newTestDomain(t *testing.T) []carteiro.DNSRecord {
	t.Helper()
	_, publicKey, err := dkim.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	d := &carteiro.Domain{
		Name:           "example.com",
		DKIMSelector:   "cart1",
		DKIMPublicKey:  publicKey,
		OwnershipToken: "tok_" + carteiro.RandomBase62(24),
	}
	return d.Records(testBounceHost)
}

// publish puts every record in the zone exactly as the customer is told.
func publish(srv *testutil.DNSServer, records []carteiro.DNSRecord) {
	for _, r := range records {
		switch r.Type {
		case "TXT":
			srv.SetTXT(r.Host, r.Value)
		case "CNAME":
			srv.SetCNAME(r.Host, r.Value)
		}
	}
}

// recordOf returns the record of a kind.
func recordOf(t *testing.T, records []carteiro.DNSRecord, kind string) carteiro.DNSRecord {
	t.Helper()
	i := slices.IndexFunc(records, func(r carteiro.DNSRecord) bool { return r.Record == kind })
	if i < 0 {
		t.Fatalf("no %s record", kind)
	}
	return records[i]
}

func newTestChecker(t *testing.T) (*testutil.DNSServer, *Checker) {
	t.Helper()
	srv, r := newTestResolver(t)
	return srv, &Checker{Resolver: r}
}

// assertCheck compares one check with the status and found values wanted.
func assertCheck(t *testing.T, checks carteiro.DomainChecks, record carteiro.DNSRecord, status carteiro.CheckStatus, found []string) {
	t.Helper()
	got, ok := checks[record.Record]
	if !ok {
		t.Fatalf("no check for %s", record.Record)
	}
	if got.Status != status {
		t.Errorf("%s: status %s, want %s (found %q)", record.Record, got.Status, status, got.Found)
	}
	if got.Expected != record.Value {
		t.Errorf("%s: expected %q, want %q", record.Record, got.Expected, record.Value)
	}
	if got.Found == nil {
		t.Errorf("%s: Found is nil, want a non-nil slice", record.Record)
	}
	if !slices.Equal(got.Found, found) {
		t.Errorf("%s: found %q, want %q", record.Record, got.Found, found)
	}
}

func TestCheckAllRecordsRight(t *testing.T) {
	t.Parallel()
	srv, checker := newTestChecker(t)
	records := newTestDomain(t)
	publish(srv, records)

	checks := checker.Check(context.Background(), records)
	if len(checks) != 4 {
		t.Fatalf("got %d checks, want 4: %v", len(checks), checks)
	}
	for _, r := range records {
		assertCheck(t, checks, r, carteiro.CheckPass, []string{r.Value})
	}
	if !checks.RequiredPass(records) {
		t.Fatal("RequiredPass = false with every record right")
	}
}

func TestCheckDKIMWithAnotherKeyFails(t *testing.T) {
	t.Parallel()
	srv, checker := newTestChecker(t)
	records := newTestDomain(t)
	publish(srv, records)
	dkimRecord := recordOf(t, records, carteiro.RecordDKIM)
	_, otherKey, err := dkim.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	published := "v=DKIM1; k=rsa; p=" + otherKey
	srv.SetTXT(dkimRecord.Host, published)

	checks := checker.Check(context.Background(), records)
	assertCheck(t, checks, dkimRecord, carteiro.CheckFail, []string{published})
	if checks.RequiredPass(records) {
		t.Fatal("RequiredPass = true with a wrong DKIM key")
	}
}

func TestCheckDKIMAcceptsEquivalentRecord(t *testing.T) {
	t.Parallel()
	srv, checker := newTestChecker(t)
	records := newTestDomain(t)
	publish(srv, records)
	dkimRecord := recordOf(t, records, carteiro.RecordDKIM)
	key := dkimRecord.Value[len("v=DKIM1; k=rsa; p="):]
	// No v= nor k=, extra tags, and the key wrapped with spaces the way zone
	// editors do; next to an unrelated TXT record.
	published := "t=s; p=" + key[:100] + " " + key[100:300] + "\t" + key[300:] + " ;"
	srv.SetTXT(dkimRecord.Host, "unrelated", published)

	checks := checker.Check(context.Background(), records)
	if got := checks[carteiro.RecordDKIM]; got.Status != carteiro.CheckPass || len(got.Found) != 2 {
		t.Fatalf("dkim check = %+v, want pass with both values found", got)
	}
}

func TestCheckMissingCNAMEFails(t *testing.T) {
	t.Parallel()
	srv, checker := newTestChecker(t)
	records := newTestDomain(t)
	publish(srv, records)
	spf := recordOf(t, records, carteiro.RecordSPF)
	srv.RemoveName(spf.Host)

	checks := checker.Check(context.Background(), records)
	assertCheck(t, checks, spf, carteiro.CheckFail, []string{})
	assertCheck(t, checks, recordOf(t, records, carteiro.RecordDKIM), carteiro.CheckPass, []string{recordOf(t, records, carteiro.RecordDKIM).Value})
	if checks.RequiredPass(records) {
		t.Fatal("RequiredPass = true without the return-path CNAME")
	}
}

func TestCheckWrongValuesFail(t *testing.T) {
	t.Parallel()
	srv, checker := newTestChecker(t)
	records := newTestDomain(t)
	publish(srv, records)
	ownership := recordOf(t, records, carteiro.RecordOwnership)
	spf := recordOf(t, records, carteiro.RecordSPF)
	srv.SetTXT(ownership.Host, ownership.Value+"x", "carteiro-verification=")
	srv.SetCNAME(spf.Host, "bounces.elsewhere.test")

	checks := checker.Check(context.Background(), records)
	assertCheck(t, checks, ownership, carteiro.CheckFail, []string{ownership.Value + "x", "carteiro-verification="})
	assertCheck(t, checks, spf, carteiro.CheckFail, []string{"bounces.elsewhere.test"})
}

func TestCheckCNAMEIgnoresCaseAndDot(t *testing.T) {
	t.Parallel()
	srv, checker := newTestChecker(t)
	records := newTestDomain(t)
	publish(srv, records)
	spf := recordOf(t, records, carteiro.RecordSPF)
	srv.SetCNAME(spf.Host, "BOUNCES.Carteiro.TEST.")
	spf.Value = "Bounces.carteiro.test."

	checks := checker.Check(context.Background(), []carteiro.DNSRecord{spf})
	assertCheck(t, checks, spf, carteiro.CheckPass, []string{"bounces.carteiro.test"})
}

func TestCheckDMARCAnyPolicyAndOptional(t *testing.T) {
	t.Parallel()
	srv, checker := newTestChecker(t)
	records := newTestDomain(t)
	publish(srv, records)
	dmarc := recordOf(t, records, carteiro.RecordDMARC)

	strict := "v=DMARC1; p=reject; rua=mailto:d@example.com"
	srv.SetTXT(dmarc.Host, strict)
	checks := checker.Check(context.Background(), records)
	assertCheck(t, checks, dmarc, carteiro.CheckPass, []string{strict})

	srv.SetTXT(dmarc.Host, "v=spf1 -all")
	checks = checker.Check(context.Background(), records)
	assertCheck(t, checks, dmarc, carteiro.CheckFail, []string{"v=spf1 -all"})

	srv.RemoveName(dmarc.Host)
	checks = checker.Check(context.Background(), records)
	assertCheck(t, checks, dmarc, carteiro.CheckFail, []string{})
	if !checks.RequiredPass(records) {
		t.Fatal("a missing DMARC record (recommended only) blocked verification")
	}
}

func TestCheckServerFailureIsPending(t *testing.T) {
	t.Parallel()
	srv, checker := newTestChecker(t)
	records := newTestDomain(t)
	publish(srv, records)
	dkimRecord := recordOf(t, records, carteiro.RecordDKIM)
	srv.SetFailure(dkimRecord.Host, dns.RcodeServerFailure)

	checks := checker.Check(context.Background(), records)
	assertCheck(t, checks, dkimRecord, carteiro.CheckPending, []string{})
	ownership := recordOf(t, records, carteiro.RecordOwnership)
	assertCheck(t, checks, ownership, carteiro.CheckPass, []string{ownership.Value})
}

// TestCheckTimeoutsArePendingAndConcurrent asks a server that never answers:
// every check is pending, and the whole check takes about one timeout, not
// one per record, because the look-ups run concurrently.
func TestCheckTimeoutsArePendingAndConcurrent(t *testing.T) {
	t.Parallel()
	// Long enough that one look-up after another would take several seconds,
	// which a loaded CI machine cannot confuse with look-ups side by side.
	const timeout = time.Second
	r, err := NewResolver(silentServer(t), timeout)
	if err != nil {
		t.Fatal(err)
	}
	records := newTestDomain(t)
	start := time.Now()
	checks := (&Checker{Resolver: r}).Check(context.Background(), records)
	elapsed := time.Since(start)
	for _, rec := range records {
		assertCheck(t, checks, rec, carteiro.CheckPending, []string{})
	}
	if elapsed >= time.Duration(len(records))*timeout {
		t.Fatalf("Check took %v: the look-ups did not run concurrently", elapsed)
	}
}
